import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { chunkTexts, INIT_PARAMS, isolatedEnv, ProxyProcess, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

function startProxy(extraArgs: string[] = []): ProxyProcess {
  return fx.spawn(["--url", fx.service.url, ...extraArgs], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
}

describe("pass-through", () => {
  it("carries a full conversation, including a permission request to the editor, unchanged both ways", async () => {
    const p = startProxy();
    fx.service.turn = { updates: 3, intervalMs: 5, askPermission: true, stopReason: "end_turn" };

    const init = await p.request("initialize", INIT_PARAMS);
    expect(init["result"]).toMatchObject({ protocolVersion: 1, agentInfo: { name: "hermes-edge" } });
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;

    p.send({ id: 100, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
    const permission = await p.waitFor((m) => m.method === "session/request_permission", WAIT_MS, "permission request");
    expect(permission["id"]).toBe(`perm-${sessionId}`);
    p.send({ id: permission["id"] as string, result: { outcome: { outcome: "selected", optionId: "allow" } } });

    const done = await p.waitFor((m) => m.id === 100 && "result" in m, WAIT_MS, "prompt response");
    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    expect(chunkTexts(p.messages, sessionId)).toEqual([1, 2, 3].map((i) => `chunk ${i} (permission: allow)`));

    // What the service received is what the editor sent, byte-for-byte in value.
    const prompt = fx.service.receivedMethods("session/prompt")[0]?.message;
    expect(prompt).toEqual({ jsonrpc: "2.0", id: 100, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
    // The proxy asked for `_hermes/turn_ended` and consumed it; this editor did not ask, so it never sees one.
    expect(fx.service.receivedMethods("initialize")[0]?.message["params"]).toMatchObject({ clientCapabilities: { _meta: { hermes: { turnEnded: true } } } });
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toHaveLength(0);
    expect(p.garbage).toEqual([]);
  });

  it("answers a malformed line with -32700 and id null, and keeps working", async () => {
    const p = startProxy();
    p.sendRaw("{this is not json\n");
    const parseError = await p.waitFor((m) => m.id === null, WAIT_MS, "parse error");
    expect(parseError["error"]).toMatchObject({ code: -32700 });

    p.sendRaw("[1,2]\n");
    await p.waitFor((m) => m.id === null && (m["error"] as { code: number }).code === -32600, WAIT_MS, "batch refusal");

    const init = await p.request("initialize", INIT_PARAMS);
    expect(init["result"]).toBeDefined();
    const echo = await p.request("_test/echo", { n: 1 });
    expect(echo["result"]).toEqual({ echo: { n: 1 } });
    expect(p.garbage).toEqual([]);
  });

  it("closes the socket with code 1000 and exits 0 when stdin closes", async () => {
    const p = startProxy();
    await p.request("initialize", INIT_PARAMS);
    p.closeStdin();
    expect((await p.exited).code).toBe(0);
    await waitUntil(() => fx.service.closeCodes.length > 0);
    expect(fx.service.closeCodes).toEqual([1000]);
  });

  it("answers what the editor sent before it closed stdin, then exits 0 (a script piping its requests in)", async () => {
    const p = startProxy();
    // Written at once, stdin closed right after: none of them can have been answered yet.
    p.sendRaw(
      [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: INIT_PARAMS },
        { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } },
        { jsonrpc: "2.0", id: 3, method: "_test/echo", params: { last: true } },
      ].map((m) => JSON.stringify(m) + "\n").join(""),
    );
    p.closeStdin();
    expect((await p.exited).code).toBe(0);
    expect(p.messages.filter((m) => !("method" in m)).map((m) => [m.id, "result" in m])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(p.stderr).toMatch(/stdin closed by the editor; shutting down once the service has answered 3 request/);
    await waitUntil(() => fx.service.closeCodes.length > 0);
    expect(fx.service.closeCodes).toEqual([1000]);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("exits 0 on %s after closing the socket cleanly", async (signal) => {
    const p = startProxy();
    await p.request("initialize", INIT_PARAMS);
    p.child.kill(signal);
    expect(await p.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => fx.service.closeCodes.length > 0);
    expect(fx.service.closeCodes).toEqual([1000]);
  });

  it("keeps log lines off stdout even at debug level", async () => {
    const p = startProxy(["--log-level", "debug"]);
    await p.request("initialize", INIT_PARAMS);
    p.closeStdin();
    await p.exited;
    expect(p.stderr).toMatch(/debug: connecting to/);
    expect(p.garbage).toEqual([]);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
