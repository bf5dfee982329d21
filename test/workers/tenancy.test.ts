import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { freshAddress, mockScript, sleep, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

const CWD = "/work/shared-repo";

/** The exact bytes of an error response, with its id taken out. */
function errorBytes(client: TestClient, response: Frame): string {
  const raw = client.rawOf(response);
  const prefix = `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},`;
  expect(raw.startsWith(prefix)).toBe(true);
  return raw.slice(prefix.length);
}

const NOT_FOUND = { code: -32002, message: "Resource not found", data: { detail: "no such session" } };

function rest(path: string, token: string | null = "tok-alpha"): Promise<Response> {
  const headers: Record<string, string> = { "CF-Connecting-IP": freshAddress() };
  if (token) headers.Authorization = `Bearer ${token}`;
  return SELF.fetch(`http://hermes.test${path}`, { headers });
}

describe("two tenants", () => {
  it("answers beta's load/resume/prompt/close/delete of alpha's session exactly like an unknown id", async () => {
    const alpha = await TestClient.ready();
    const sessionId = await alpha.newSession(CWD);
    await alpha.prompt(sessionId, "alpha's secret plan").response;
    const beta = await TestClient.ready({ token: "tok-beta" });

    const calls: [string, (id: string) => Frame][] = [
      ["session/load", (id) => ({ sessionId: id, cwd: CWD, mcpServers: [] })],
      ["session/resume", (id) => ({ sessionId: id, cwd: CWD })],
      ["session/prompt", (id) => ({ sessionId: id, prompt: [{ type: "text", text: "steal" }] })],
      ["session/close", (id) => ({ sessionId: id })],
    ];
    for (const [method, params] of calls) {
      const foreign = await beta.request(method, params(sessionId));
      const unknown = await beta.request(method, params(crypto.randomUUID()));
      expect(foreign.error, method).toEqual(NOT_FOUND);
      expect(errorBytes(beta, foreign), method).toBe(errorBytes(beta, unknown));
    }
    // session/delete succeeds silently for an unknown id (ACP), so a foreign one answers the same and deletes nothing.
    const foreignDelete = await beta.request("session/delete", { sessionId });
    const unknownDelete = await beta.request("session/delete", { sessionId: crypto.randomUUID() });
    expect(foreignDelete.result).toEqual({});
    expect(unknownDelete.result).toEqual({});
    // Nothing of alpha's session reached beta, and the session is untouched.
    expect(beta.frames.filter((f) => f.params?.sessionId === sessionId)).toEqual([]);
    const mine = (await alpha.call("session/list", { cwd: CWD })).sessions.find((s: Frame) => s.sessionId === sessionId);
    expect(mine._meta.hermes.status).toBe("active");
    const again = alpha.prompt(sessionId, "still mine");
    expect((await again.response).result).toEqual({ stopReason: "end_turn" });
    expect(alpha.agentText(sessionId)).toBe("Echo: alpha's secret planEcho: still mine");
    expect(beta.frames.filter((f) => f.params?.sessionId === sessionId)).toEqual([]);
    alpha.close();
    beta.close();
  });

  it("ignores beta's session/cancel and $/cancel_request for alpha's running turn", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 20, chunkDelayMs: 25 }]);
    const alpha = await TestClient.ready();
    const sessionId = await alpha.newSession(CWD);
    const running = alpha.prompt(sessionId, `work [[mock:${key}]]`);
    await alpha.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const beta = await TestClient.ready({ token: "tok-beta" });
    beta.notify("session/cancel", { sessionId });
    beta.notify("$/cancel_request", { requestId: running.id });
    expect((await running.response).result).toEqual({ stopReason: "end_turn" });
    expect(alpha.agentText(sessionId)).toBe(Array.from({ length: 20 }, (_, i) => (i === 0 ? "t0" : ` t${i}`)).join(""));
    // Beta's connection is fine and learned nothing.
    expect((await beta.call("session/list", { cwd: CWD })).sessions.map((s: Frame) => s.sessionId)).not.toContain(sessionId);
    expect(beta.frames.filter((f) => f.params?.sessionId === sessionId)).toEqual([]);
    alpha.close();
    beta.close();
  });

  it("does not let beta attach to alpha's session by resuming it before alpha's turn", async () => {
    const alpha = await TestClient.ready();
    const sessionId = await alpha.newSession(CWD);
    const beta = await TestClient.ready({ token: "tok-beta" });
    expect((await beta.request("session/resume", { sessionId, cwd: CWD })).error).toEqual(NOT_FOUND);
    await alpha.prompt(sessionId, "private").response;
    await sleep(50);
    expect(beta.frames.filter((f) => f.params?.sessionId === sessionId)).toEqual([]);
    alpha.close();
    beta.close();
  });

  it("lists only each tenant's own sessions over ACP", async () => {
    const cwd = `/work/${crypto.randomUUID()}`;
    const alpha = await TestClient.ready();
    const beta = await TestClient.ready({ token: "tok-beta" });
    const a1 = await alpha.newSession(cwd);
    const a2 = await alpha.newSession(cwd);
    const b1 = await beta.newSession(cwd);
    const ofAlpha = (await alpha.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId);
    const ofBeta = (await beta.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId);
    expect(ofAlpha.sort()).toEqual([a1, a2].sort());
    expect(ofBeta).toEqual([b1]);
    const allBeta = (await beta.call("session/list", {})).sessions.map((s: Frame) => s.sessionId);
    expect(allBeta).toContain(b1);
    expect(allBeta).not.toContain(a1);
    expect(allBeta).not.toContain(a2);
    alpha.close();
    beta.close();
  });
});

describe("browser subprotocol token", () => {
  it("maps a token offered in Sec-WebSocket-Protocol to its tenant", async () => {
    const cwd = `/work/${crypto.randomUUID()}`;
    const alpha = await TestClient.ready();
    const a1 = await alpha.newSession(cwd);
    const browser = await TestClient.open({ token: null, protocols: ["acp", "hermes-edge-token.tok-beta"] });
    await browser.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const b1 = await browser.newSession(cwd);
    expect((await browser.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId)).toEqual([b1]);
    expect((await browser.request("session/load", { sessionId: a1, cwd, mcpServers: [] })).error).toEqual(NOT_FOUND);
    const ofBeta = (await (await rest(`/v1/sessions?cwd=${encodeURIComponent(cwd)}`, "tok-beta")).json()) as Frame;
    expect(ofBeta.sessions.map((s: Frame) => s.sessionId)).toEqual([b1]);
    alpha.close();
    browser.close();
  });

  it("rejects an unknown subprotocol token with 401", async () => {
    const res = await SELF.fetch("http://hermes.test/acp", {
      headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": "acp, hermes-edge-token.tok-nobody", "CF-Connecting-IP": freshAddress() },
    });
    expect(res.status).toBe(401);
    expect(res.webSocket).toBeNull();
  });
});

describe("REST", () => {
  it("GET /v1/sessions lists only the caller's sessions", async () => {
    const cwd = `/work/${crypto.randomUUID()}`;
    const alpha = await TestClient.ready();
    const beta = await TestClient.ready({ token: "tok-beta" });
    const a1 = await alpha.newSession(cwd);
    const b1 = await beta.newSession(cwd);
    const q = `/v1/sessions?cwd=${encodeURIComponent(cwd)}`;
    const resA = await rest(q, "tok-alpha");
    expect(resA.status).toBe(200);
    const bodyA = (await resA.json()) as Frame;
    expect(bodyA.sessions.map((s: Frame) => s.sessionId)).toEqual([a1]);
    expect(bodyA.nextCursor).toBeNull();
    // The same listing as session/list.
    expect(bodyA.sessions).toEqual((await alpha.call("session/list", { cwd })).sessions);
    const bodyB = (await (await rest(q, "tok-beta")).json()) as Frame;
    expect(bodyB.sessions.map((s: Frame) => s.sessionId)).toEqual([b1]);
    alpha.close();
    beta.close();
  });

  it("GET /v1/sessions/:id answers a foreign session exactly like an unknown one", async () => {
    const alpha = await TestClient.ready();
    const sessionId = await alpha.newSession(CWD);
    const own = await rest(`/v1/sessions/${sessionId}`, "tok-alpha");
    expect(own.status).toBe(200);
    expect(((await own.json()) as Frame).sessionId).toBe(sessionId);
    const foreign = await rest(`/v1/sessions/${sessionId}`, "tok-beta");
    const unknown = await rest(`/v1/sessions/${crypto.randomUUID()}`, "tok-beta");
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    const body = await foreign.text();
    expect(JSON.parse(body)).toEqual({ error: { code: -32002, message: "no such session" } });
    expect(body).toBe(await unknown.text());
    alpha.close();
  });

  it("pages GET /v1/sessions with the cursor and rejects a bad one with 400", async () => {
    const cwd = `/work/${crypto.randomUUID()}`;
    const alpha = await TestClient.ready();
    const created = await Promise.all(Array.from({ length: 52 }, () => alpha.newSession(cwd)));
    const first = (await (await rest(`/v1/sessions?cwd=${encodeURIComponent(cwd)}`)).json()) as Frame;
    expect(first.sessions).toHaveLength(50);
    const second = (await (await rest(`/v1/sessions?cwd=${encodeURIComponent(cwd)}&cursor=${encodeURIComponent(first.nextCursor)}`)).json()) as Frame;
    expect(second.sessions).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    expect([...first.sessions, ...second.sessions].map((s: Frame) => s.sessionId).sort()).toEqual([...created].sort());
    const bad = await rest(`/v1/sessions?cursor=nope`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: -32602, message: "invalid cursor" } });
    alpha.close();
  });

  it("answers 401 without a token or with an unknown one", async () => {
    for (const path of ["/v1/sessions", `/v1/sessions/${crypto.randomUUID()}`]) {
      const missing = await rest(path, null);
      expect(missing.status).toBe(401);
      expect(missing.headers.get("WWW-Authenticate")).toBe('Bearer realm="hermes-edge"');
      expect(await missing.json()).toEqual({
        error: { code: -32000, message: "missing credentials: send Authorization: Bearer <key>", data: { reason: "missing" } },
      });
      const wrong = await rest(path, "tok-gamma");
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ error: { code: -32000, message: "unknown token", data: { reason: "unknown" } } });
    }
  });

  it("serves GET /health without a token", async () => {
    const res = await rest("/health", null);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, name: "hermes-edge", version: pkg.version });
  });

  it("answers GET /acp without an upgrade with 426", async () => {
    const res = await rest("/acp");
    expect(res.status).toBe(426);
    expect(res.headers.get("Upgrade")).toBe("websocket");
    expect(await res.json()).toEqual({
      error: { code: -32600, message: "GET /acp must be a WebSocket upgrade (Upgrade: websocket) or accept text/event-stream" },
    });
  });
});
