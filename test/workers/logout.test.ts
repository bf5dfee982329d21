/**
 * ACP `logout` on a direct WebSocket (issue 11): advertised as
 * `agentCapabilities.auth.logout`; afterwards the connection is unauthenticated:
 * its sessions are let go and session methods answer -32000 until `authenticate`.
 */
import { describe, expect, it } from "vitest";
import { mockScript, sleep, TestClient, uniqueKey } from "./acp-test-client.js";
import { admin, createKey, uniqueTenant } from "./admin-client.js";

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

  describe("authenticate with a managed key", () => {
    const loggedOut = (method: string) => ({ code: -32000, message: "Authentication required", data: { detail: `logged out: call authenticate before "${method}"` } });

    it("refuses at once a key revoked since the connection opened (before the next key check), and the connection stays logged out", async () => {
      const { id, key } = await createKey(uniqueTenant());
      const client = await TestClient.ready({ token: key });
      await client.newSession();
      expect(await client.call("logout", {})).toEqual({});
      expect((await admin(`/keys/${id}`, { method: "DELETE" })).status).toBe(200);

      const refused = await client.request("authenticate", { methodId: "hermes-edge-token" });
      expect(refused.error).toEqual({
        code: -32000,
        message: "Authentication required",
        data: { detail: "key revoked since this connection opened: connect again with an active key" },
      });
      expect((await client.request("session/list", {})).error).toEqual(loggedOut("session/list"));
      expect((await client.request("session/new", { cwd: "/work/project", mcpServers: [] })).error).toEqual(loggedOut("session/new"));
      expect(client.closed).toBeNull();
      client.close();
    });

    it("refuses a key that expired since the connection opened", async () => {
      const { key } = await createKey(uniqueTenant(), "short", new Date(Date.now() + 1_500).toISOString());
      const client = await TestClient.ready({ token: key });
      await client.call("logout", {});
      await sleep(1_600);
      const refused = await client.request("authenticate", { methodId: "hermes-edge-token" });
      expect(refused.error).toMatchObject({ code: -32000, data: { detail: "key expired since this connection opened: connect again with an active key" } });
      expect((await client.request("session/list", {})).error).toEqual(loggedOut("session/list"));
      client.close();
    });

    it("logs a key that is still active back in", async () => {
      const tenant = uniqueTenant();
      const { key } = await createKey(tenant);
      // Another key of the same tenant revoked meanwhile changes nothing for this one.
      const other = await createKey(tenant);
      const client = await TestClient.ready({ token: key });
      const sessionId = await client.newSession();
      await client.call("logout", {});
      expect((await admin(`/keys/${other.id}`, { method: "DELETE" })).status).toBe(200);
      expect(await client.call("authenticate", { methodId: "hermes-edge-token" })).toEqual({});
      const listed = await client.call("session/list", {});
      expect(listed.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(sessionId);
      client.close();
    });
  });
});
