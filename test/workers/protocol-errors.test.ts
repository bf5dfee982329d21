import { describe, expect, it, vi } from "vitest";
import { TestClient, upgrade } from "./acp-test-client.js";

describe("transport and JSON-RPC framing", () => {
  it("rejects an upgrade without a token with 401 before upgrading", async () => {
    const res = await upgrade({ token: null });
    expect(res.status).toBe(401);
    expect(res.webSocket).toBeNull();
  });

  it("rejects an unknown token with 401", async () => {
    const res = await upgrade({ token: "nope" });
    expect(res.status).toBe(401);
  });

  it("answers 101 with Acp-Connection-Id", async () => {
    const client = await TestClient.open();
    expect(client.response.status).toBe(101);
    expect(client.response.headers.get("Acp-Connection-Id")).toMatch(/^[0-9a-f]{64}$/);
    client.close();
  });

  it("accepts a browser token in Sec-WebSocket-Protocol and echoes only acp", async () => {
    const client = await TestClient.open({ token: null, protocols: ["acp", "hermes-edge-token.tok-beta"] });
    expect(client.response.headers.get("Sec-WebSocket-Protocol")).toBe("acp");
    client.close();
  });

  it("returns -32700 with id null for invalid JSON and keeps the connection", async () => {
    const client = await TestClient.ready();
    const reply = client.next((f) => f.error?.code === -32700);
    client.send("{not json");
    expect((await reply).id).toBeNull();
    expect(await client.call("session/list", {})).toHaveProperty("sessions"); // still answering
    client.close();
  });

  it("returns one -32600 with id null for a batch", async () => {
    const client = await TestClient.ready();
    const reply = client.next((f) => f.error?.code === -32600);
    client.send(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "session/list", params: {} }]));
    expect((await reply).id).toBeNull();
    await client.call("session/list", {});
    expect(client.frames.filter((f) => f.error?.code === -32600)).toHaveLength(1);
    client.close();
  });

  it("returns -32600 for a value that is not a JSON-RPC object", async () => {
    const client = await TestClient.ready();
    const reply = client.next((f) => f.error?.code === -32600);
    client.send(JSON.stringify({ jsonrpc: "1.0", id: 7, method: "session/list" }));
    expect((await reply).id).toBe(7);
    const reply2 = client.next((f) => f.error?.code === -32600 && f.id === null);
    client.send("42");
    await reply2;
    client.close();
  });

  it("returns -32601 for an unknown method", async () => {
    const client = await TestClient.ready();
    const res = await client.request("session/teleport", {});
    expect(res.error.code).toBe(-32601);
    client.close();
  });

  // Without the test client's wait (frames-taken-in.ts) about one burst in seven came back out of order here.
  it("answers requests sent back to back in the order they were sent", async () => {
    const client = await TestClient.ready();
    const swapped: number[][] = [];
    for (let burst = 0; burst < 200; burst++) {
      const sent = Array.from({ length: 5 }, () => client.start("session/teleport", {}));
      const answers = await Promise.all(sent.map((s) => s.response));
      const at = answers.map((f) => client.frames.indexOf(f));
      if (at.some((i, n) => n > 0 && i < at[n - 1]!)) swapped.push(sent.map((s) => s.id));
    }
    expect(swapped).toEqual([]);
    client.close();
  });

  it("returns -32602 with the zod issues in error.data for a relative cwd", async () => {
    const client = await TestClient.ready();
    const res = await client.request("session/new", { cwd: "relative/path", mcpServers: [] });
    expect(res.error.code).toBe(-32602);
    expect(res.error.data).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["cwd"] })]));
    client.close();
  });

  it("returns -32600 for any request before initialize", async () => {
    const client = await TestClient.open();
    const res = await client.request("session/new", { cwd: "/a", mcpServers: [] });
    expect(res.error.code).toBe(-32600);
    expect(res.error.data.detail).toMatch(/initialize/);
    client.close();
  });

  it("answers an oversized frame with an error naming the limit", async () => {
    const client = await TestClient.ready();
    const reply = client.next((f) => f.error?.code === -32600);
    client.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/list", params: { pad: "x".repeat(70 * 1024) } }));
    const err = await reply;
    // In words a user acts on; the exact sizes ride in data for programs (the proxy matches the frame by them).
    expect(err.error.message).toContain("more than the 64 KB the service takes in one message");
    expect(err.error.data).toMatchObject({ limitBytes: 65536 });
    await client.call("session/list", {});
    client.close();
  });

  it("answers a peer's close without a status (1005) with 1000, never echoing 1005 or leaving the socket to fail with 1006", async () => {
    const client = await TestClient.ready();
    const sessionId = await client.newSession("/work/close-codes");
    const closed = new Promise<CloseEvent>((resolve) => client.ws.addEventListener("close", resolve));
    client.ws.close();
    const event = await closed;
    expect(event.code).toBe(1000);
    // The session let the connection go: another client can still use it.
    const other = await TestClient.ready();
    expect((await other.request("session/resume", { sessionId, cwd: "/work/close-codes" })).result).toBeDefined();
    other.close();
  });

  it("keeps a custom close code the peer sent", async () => {
    const client = await TestClient.ready();
    const closed = new Promise<CloseEvent>((resolve) => client.ws.addEventListener("close", resolve));
    client.ws.close(4000, "bye");
    expect((await closed).code).toBe(4000);
  });

  it("ignores binary frames (as the ACP transport RFD says), logs them once and keeps the connection usable", async () => {
    const warn = vi.spyOn(console, "warn");
    const client = await TestClient.ready();
    client.send(new Uint8Array([1, 2, 3]));
    client.send(new Uint8Array([4, 5, 6]));
    expect((await client.request("session/list", {})).result).toMatchObject({ sessions: expect.any(Array) });
    expect(client.closed).toBeFalsy();
    expect(warn.mock.calls.filter(([message]) => String(message).includes("binary"))).toHaveLength(1);
    warn.mockRestore();
    client.close();
  });
});
