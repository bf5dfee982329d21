/**
 * ACP `logout` through the proxy: it forgets the token `--setup` saved (in a
 * temporary HOME, never the developer's), closes the service connection and
 * answers `{}`; until the editor authenticates again, requests get -32000.
 * A first run with no token at all starts the same way, so the editor can
 * offer its terminal auth method ("Configure hermes-edge").
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentFrameValidator } from "../../test/support/acp-schema.js";
import { useFakeService } from "./fixture.js";
import { CLI, INIT_PARAMS, isolatedEnv, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

/** Runs `--setup` as the editor's terminal auth method would, answering its two questions. */
async function setup(env: Record<string, string>, url: string, token: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, "--setup"], { env, stdio: ["pipe", "ignore", "ignore"] });
  child.stdin.end(`${url}\n${token}\n`);
  const code = await new Promise((resolve) => child.on("exit", resolve));
  expect(code).toBe(0);
}

const savedConfig = (env: Record<string, string>) => JSON.parse(readFileSync(join(env["XDG_CONFIG_HOME"]!, "hermes-edge", "config.json"), "utf8")) as Record<string, unknown>;

describe("a first run with no token", () => {
  it("answers initialize with the auth methods, -32000 for session/new, and works once the terminal method (--setup) ran and the editor authenticated", async () => {
    const env = isolatedEnv();
    // As an editor configured with the URL only (the README's snippet without the token).
    const p = fx.spawn(["--url", fx.service.url], env);
    const validator = new AgentFrameValidator();
    const params = { ...INIT_PARAMS, clientCapabilities: { ...INIT_PARAMS.clientCapabilities, auth: { terminal: true } } };
    validator.sent({ id: 1, method: "initialize" });
    const init = await p.request("initialize", params);
    expect(init["result"]).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: "hermes-edge" },
      agentCapabilities: { loadSession: true, auth: { logout: {} } },
      authMethods: expect.arrayContaining([{ type: "terminal", id: "hermes-edge-setup", name: "Configure hermes-edge", description: expect.any(String), args: ["--setup"] }]),
    });
    expect(fx.service.upgradeHeaders).toEqual([]); // it did not try without a token
    validator.sent({ id: 2, method: "session/new" });
    const refused = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    expect(refused["error"]).toMatchObject({ code: -32000, message: expect.stringContaining('"Configure hermes-edge"'), data: { reason: "not_configured" } });

    await setup(env, fx.service.url, "good-token");
    validator.sent({ id: 3, method: "authenticate" });
    expect((await p.request("authenticate", { methodId: "hermes-edge-setup" }))["result"]).toEqual({});
    // The service got the editor's initialize, replayed as on a reconnect (the first one is --setup's check).
    expect(fx.service.receivedMethods("initialize").map((r) => r.message["params"])).toMatchObject([{}, { clientCapabilities: { auth: { terminal: true } } }]);
    validator.sent({ id: 4, method: "session/new" });
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    expect(created["result"]).toMatchObject({ sessionId: expect.any(String) });
    for (const m of p.messages) validator.received(m as never);
    expect(validator.errors).toEqual([]);
    expect(p.child.exitCode).toBeNull();
    expect(p.garbage).toEqual([]);
  });
});

describe("logout", () => {
  it("forgets the saved token, closes the connection and answers {}; -32000 until authenticate after --setup", async () => {
    const env = isolatedEnv();
    await setup(env, fx.service.url, "good-token");
    const p = fx.spawn([], env);
    await p.request("initialize", INIT_PARAMS);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;

    const logout = await p.request("logout", {});
    expect(logout["result"]).toEqual({});
    expect(savedConfig(env)).toEqual({ url: fx.service.url });
    await expect.poll(() => fx.service.connectionCount).toBe(0);
    expect(fx.service.closeCodes.at(-1)).toBe(1000);
    expect(fx.service.receivedMethods("logout")).toEqual([]);

    const refused = await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(refused["error"]).toMatchObject({ code: -32000, data: { reason: "logged_out" } });
    expect((await p.request("session/new", { cwd: "/project", mcpServers: [] }))["error"]).toMatchObject({ code: -32000 });

    // Authenticating with no credentials saved: the service refuses, the proxy stays up and logged out.
    const early = await p.request("authenticate", { methodId: "hermes-edge-setup" });
    expect(early["error"]).toMatchObject({ code: -32000, data: { reason: "unauthorized", status: 401 } });
    expect(p.child.exitCode).toBeNull();
    expect((await p.request("session/list", {}))["error"]).toMatchObject({ code: -32000 });

    // The terminal auth method re-runs --setup; then authenticate reconnects with the new token.
    await setup(env, fx.service.url, "good-token");
    const auth = await p.request("authenticate", { methodId: "hermes-edge-setup" });
    expect(auth["result"]).toEqual({});
    // The session is back: re-attached on the new connection, and prompts work.
    expect(fx.service.receivedMethods("session/resume").map((r) => r.message["params"])).toMatchObject([{ sessionId }]);
    p.send({ id: 99, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "again" }] } });
    expect((await p.waitFor((m) => m.id === 99, WAIT_MS, "prompt answer"))["result"]).toEqual({ stopReason: "end_turn" });
    expect(p.garbage).toEqual([]);
  });

  it("fails what was waiting with -32000 and keeps a token given by flag or env (not the proxy's to forget)", async () => {
    const env = isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" });
    const p = fx.spawn(["--url", fx.service.url, "--log-level", "debug"], env);
    await p.request("initialize", INIT_PARAMS);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    fx.service.turn = { updates: 50, intervalMs: 50, stopReason: "end_turn" };
    p.send({ id: 7, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "long" }] } });
    await p.waitFor((m) => m.method === "session/update");

    expect((await p.request("logout", {}))["result"]).toEqual({});
    expect((await p.waitFor((m) => m.id === 7, WAIT_MS, "prompt answer"))["error"]).toMatchObject({ code: -32000, data: { reason: "logged_out" } });
    await p.waitForStderr(/the token from HERMES_EDGE_TOKEN stays/);
    expect((await p.request("authenticate", { methodId: "hermes-edge-token" }))["result"]).toEqual({});
    expect((await p.request("_test/echo", { back: true }))["result"]).toEqual({ echo: { back: true } });
  });

  it("does not send again a lost prompt that logout already failed while another session was still re-attaching", async () => {
    const p = fx.spawn(["--url", fx.service.url, "--log-level", "debug"], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const [a, b] = await Promise.all([1, 2].map(async () => (await p.request("session/new", { cwd: "/project", mcpServers: [] }))["result"] as { sessionId: string }));
    fx.service.resumeDelays.set(b!.sessionId, 1500);
    // The prompt's frame dies with the connection: re-attaching session a decides to send it again.
    fx.service.losePrompts = 1;
    p.send({ id: 8, method: "session/prompt", params: { sessionId: a!.sessionId, prompt: [{ type: "text", text: "lost" }] } });
    await expect.poll(() => fx.service.receivedMethods("session/resume").length, { timeout: WAIT_MS }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Session b still waits for its resume; logout answers the prompt now.
    expect((await p.request("logout", {}))["result"]).toEqual({});
    expect((await p.waitFor((m) => m.id === 8, WAIT_MS, "prompt answer"))["error"]).toMatchObject({ code: -32000, data: { reason: "logged_out" } });

    expect((await p.request("authenticate", { methodId: "hermes-edge-token" }, WAIT_MS))["result"]).toEqual({});
    expect((await p.request("_test/echo", { back: true }))["result"]).toEqual({ echo: { back: true } });
    expect(fx.service.receivedMethods("session/prompt")).toHaveLength(1);
    expect(p.messages.filter((m) => m.id === 8)).toHaveLength(1);
  });
});
