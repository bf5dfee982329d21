/**
 * `npm run keys` against `wrangler dev`: the admin token comes from the
 * `.dev.vars` of the directory it runs in (a scratch one here, never the
 * developer's), keys it creates open the WebSocket, revoked ones get 401, and
 * the rate-limiting binding answers 429 under wrangler dev too.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bundledScript } from "../support/bundled-script.js";
import type { DevServer } from "../support/wrangler-dev.js";
import { SHARED_ADMIN_TOKEN as ADMIN, useE2eService } from "./e2e-service.js";
import { connectSdk } from "./sdk-client.js";

const TOKEN = "tok-keys-e2e";
const e2e = useE2eService(TOKEN);
let server: DevServer;
let cwd: string;

beforeAll(() => {
  server = e2e.server;
  cwd = mkdtempSync(join(tmpdir(), "hermes-keys-cli-"));
  writeFileSync(join(cwd, ".dev.vars"), `HERMES_EDGE_TOKENS=e2e-keys:${TOKEN}\nHERMES_ADMIN_TOKEN=${ADMIN}\n`);
});

afterAll(() => {
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

function keys(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bundledScript("scripts/keys.ts"), ...args], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.once("close", (code) => done({ code: code ?? 1, stdout, stderr })));
}

/** The upgrade's outcome: 101, or the refusal's status and JSON body. */
function upgrade(token: string): Promise<{ status: number; body?: unknown }> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(server.wsUrl, { headers: { Authorization: `Bearer ${token}` } });
    ws.once("open", () => {
      ws.close();
      done({ status: 101 });
    });
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once("error", fail);
  });
}

describe("keys per user", () => {
  it("creates keys with --user, lists each key's user, and keeps each user's sessions private until shared", async () => {
    const make = async (user: string) => {
      const created = await keys(["create", "--tenant", "crew", "--user", user, "--label", `${user}'s laptop`, "--url", server.url, "--json"]);
      expect(created.code, created.stderr).toBe(0);
      return JSON.parse(created.stdout) as { id: string; key: string; user: string };
    };
    const [ada, bob] = [await make("ada"), await make("bob")];
    expect(ada.user).toBe("ada");
    const listed = await keys(["list", "--tenant", "crew", "--url", server.url]);
    expect(listed.stdout).toMatch(new RegExp(`^${ada.id}\\s+crew\\s+ada\\s+ada's laptop\\s+active`, "m"));
    expect(listed.stdout).toMatch(/^ID\s+TENANT\s+USER\s+LABEL/m);
    const bad = await keys(["create", "--tenant", "crew", "--user", "a b", "--label", "x", "--url", server.url]);
    expect(bad.code).toBe(1);

    const editor = await connectSdk(server.wsUrl, ada.key);
    e2e.clients.push(editor);
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await editor.agent.request("session/new", { cwd: "/work/crew", mcpServers: [] });
    const rest = (path: string, token: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" } });
    expect((await rest(`/v1/sessions/${sessionId}`, bob.key)).status).toBe(404);
    const shared = await rest(`/v1/sessions/${sessionId}/shares`, ada.key, { method: "POST", body: JSON.stringify({ user: "bob", role: "viewer" }) });
    expect(shared.status).toBe(200);
    const seen = (await (await rest(`/v1/sessions/${sessionId}`, bob.key)).json()) as { _meta: { hermes: { access: unknown } } };
    expect(seen._meta.hermes.access).toEqual({ owner: "ada", role: "viewer" });
    const viewer = await connectSdk(server.wsUrl, bob.key);
    e2e.clients.push(viewer);
    await viewer.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await viewer.agent.request("session/load", { sessionId, cwd: "/work/crew", mcpServers: [] });
    await expect(viewer.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).rejects.toMatchObject({ code: -32001, data: { reason: "read_only" } });
    await viewer.close();
    await editor.close();
  });
});

describe("npm run keys against wrangler dev", () => {
  it("creates a key that opens /acp, lists it, revokes it, and the revoked key is refused with 401", async () => {
    const created = await keys(["create", "--tenant", "team", "--label", "Ada", "--expires", "30d", "--url", server.wsUrl, "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; tenant: string; expiresAt: string };
    expect(key).toMatchObject({ tenant: "team", key: expect.stringMatching(/^he_[A-Za-z0-9_-]{43}$/) });
    expect(Date.parse(key.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    expect(await upgrade(key.key)).toEqual({ status: 101 });
    const usage = await fetch(`${server.url}/v1/usage`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(((await usage.json()) as { tenant: string }).tenant).toBe("team");

    const listed = await keys(["list", "--tenant", "team", "--url", server.url]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${key.id}\\s+team\\s+\\(admin\\)\\s+Ada\\s+active`, "m"));
    expect(listed.stdout).not.toContain(key.key);

    const revoked = await keys(["revoke", key.id, "--url", server.url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${key.id}`);
    expect(await upgrade(key.key)).toEqual({ status: 401, body: { error: { code: -32000, message: "key revoked", data: { reason: "revoked" } } } });
    expect((await keys(["list", "--url", server.url])).stdout).toMatch(new RegExp(`^${key.id}.*revoked`, "m"));
  });

  it("prints the key once with what its owner runs, in human form", async () => {
    const created = await keys(["create", "--tenant", "team", "--label", "Grace", "--url", server.url]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^ {2}he_[A-Za-z0-9_-]{43}$/m);
    expect(created.stdout).toContain("This is the only time the key is shown.");
    expect(created.stdout).toContain(`URL: ${server.wsUrl}`);
  });

  it("explains bad input, a wrong admin token and a missing one for a remote URL", async () => {
    const noLabel = await keys(["create", "--tenant", "team", "--url", server.url]);
    expect([noLabel.code, noLabel.stderr.trim()]).toEqual([1, "create needs --tenant and --label"]);
    const badTenant = await keys(["create", "--tenant", "a b", "--label", "x", "--url", server.url]);
    expect(badTenant.code).toBe(1);
    expect(badTenant.stderr).toContain("HTTP 400: invalid body\n  tenant:");
    const unknown = await keys(["revoke", "key_AAAAAAAAAAAAAAAA", "--url", server.url]);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, "HTTP 404: no such key"]);
    const wrong = await keys(["list", "--url", server.url], { HERMES_ADMIN_TOKEN: "not-it" });
    expect([wrong.code, wrong.stderr.trim()]).toEqual([1, "HTTP 403: wrong admin token"]);
    // The local .dev.vars token is never sent to another host.
    const remote = await keys(["list", "--url", "https://hermes.example.invalid"]);
    expect([remote.code, remote.stderr.trim()]).toEqual([1, "no admin token for https://hermes.example.invalid: set HERMES_ADMIN_TOKEN (npm run deploy printed it)"]);
    const down = await keys(["list", "--url", "http://127.0.0.1:9"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach http://127.0.0.1:9 (is `npm start` running?)");
  });

  it("answers repeated failed authentications from one address with 429 (the rate-limiting binding under wrangler dev)", async () => {
    // From an address of its own: wrangler dev keeps the CF-Connecting-IP a client sends (on Cloudflare the edge sets it),
    // so other files' failed authentications on the shared server do not count against this limit, nor these against theirs.
    let limited: Response | undefined;
    const statuses: number[] = [];
    for (let i = 0; i < 25 && !limited; i++) {
      const res = await fetch(`${server.url}/v1/sessions`, { headers: { Authorization: "Bearer wrong-token", "CF-Connecting-IP": "192.0.2.2" } });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.body?.cancel();
    }
    expect(statuses[0]).toBe(401);
    expect(limited?.headers.get("Retry-After")).toBe("60");
    expect(((await limited!.json()) as { error: { code: number } }).error.code).toBe(-32004);
  });
});
