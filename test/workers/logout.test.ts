/**
 * ACP `logout` on a direct WebSocket (issue 11): advertised as
 * `agentCapabilities.auth.logout`; afterwards the connection is unauthenticated:
 * its sessions are let go and session methods answer -32000 until `authenticate`.
 */
import { describe, expect, it } from "vitest";
import { mockScript, TestClient, uniqueKey } from "./acp-test-client.js";

describe("logout", () => {
  it("is advertised as agentCapabilities.auth.logout", async () => {
    const client = await TestClient.open();
    const result = await client.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(result.agentCapabilities.auth).toEqual({ logout: {} });
    client.close();
  });

  it("answers {} and then -32000 to session methods until authenticate, on the same connection", async () => {
    const client = await TestClient.ready();
    const sessionId = await client.newSession();
    expect(await client.call("logout", {})).toEqual({});

    for (const [method, params] of [
      ["session/new", { cwd: "/work/project", mcpServers: [] }],
      ["session/list", {}],
      ["session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }],
      ["session/load", { sessionId, cwd: "/work/project", mcpServers: [] }],
    ] as const) {
      const res = await client.request(method, params);
      expect(res.error, method).toEqual({ code: -32000, message: "Authentication required", data: { detail: `logged out: call authenticate before "${method}"` } });
    }
    // Logging out twice is harmless; an unknown method id does not log back in.
    expect(await client.call("logout", {})).toEqual({});
    expect((await client.request("authenticate", { methodId: "oauth-magic" })).error.code).toBe(-32000);
    expect((await client.request("session/list", {})).error.code).toBe(-32000);

    expect(await client.call("authenticate", { methodId: "hermes-edge-token" })).toEqual({});
    const listed = await client.call("session/list", {});
    expect(listed.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(sessionId);
    client.close();
  });

  it("lets go of the connection's sessions: a prompt needs the session loaded again after authenticate", async () => {
    const client = await TestClient.ready();
    const sessionId = await client.newSession();
    await client.call("logout", {});
    await client.call("authenticate", { methodId: "hermes-edge-token" });
    // Detached by logout: the session answers like one this connection never opened.
    const detached = await client.prompt(sessionId, "hello").response;
    expect(detached.error).toMatchObject({ code: -32002 });

    const key = uniqueKey();
    await mockScript(key, [{ text: "back" }]);
    await client.call("session/load", { sessionId, cwd: "/work/project", mcpServers: [] });
    expect((await client.prompt(sessionId, `[[mock:${key}]] again`).response).result).toEqual({ stopReason: "end_turn" });
    client.close();
  });

  it("drops notifications while logged out", async () => {
    const client = await TestClient.ready();
    await client.call("logout", {});
    client.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "whatever" } });
    expect((await client.request("session/list", {})).error.code).toBe(-32000);
    expect(client.closed).toBeNull();
    client.close();
  });
});
