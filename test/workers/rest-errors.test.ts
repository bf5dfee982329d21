/** Every REST route answers errors in one shape: {"error": {"code", "message", "data"?}}, code a JSON-RPC code. */
import { env, listDurableObjectIds, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json } from "./admin-client.js";

const NO_SUCH_SESSION = { error: { code: -32002, message: "no such session" } };

describe("REST errors", () => {
  it("answers an unknown route with 404 -32002, with or without credentials", async () => {
    for (const token of [null, "tok-alpha"]) {
      const res = await call("/nope", { token });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: -32002, message: "no route for GET /nope" } });
    }
  });

  it("answers an unknown session the same way on every session route", async () => {
    const id = crypto.randomUUID();
    for (const [method, path] of [
      ["GET", `/v1/sessions/${id}`],
      ["GET", `/v1/sessions/${id}/lineage`],
      ["GET", `/v1/sessions/${id}/history`],
      ["GET", `/v1/sessions/${id}/subagents`],
      ["POST", `/v1/sessions/${id}/subagents/pause`],
      ["POST", `/v1/sessions/${id}/subagents/resume`],
      ["POST", `/v1/sessions/${id}/subagents/${crypto.randomUUID()}/interrupt`],
    ] as const) {
      const res = await call(path, { method, token: "tok-alpha" });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json(), `${method} ${path}`).toEqual(NO_SUCH_SESSION);
    }
  });

  it("never wakes a session object for an id the index does not know", async () => {
    const id = crypto.randomUUID();
    for (const [method, path] of [
      ["GET", `/v1/sessions/${id}/history`],
      ["POST", `/v1/sessions/${id}/subagents/pause`],
      ["POST", `/v1/sessions/${id}/subagents/${crypto.randomUUID()}/interrupt`],
    ] as const) {
      expect((await call(path, { method, token: "tok-alpha" })).status, `${method} ${path}`).toBe(404);
    }
    const created = (await listDurableObjectIds(env.SESSION)).map((objectId) => objectId.toString());
    expect(created).not.toContain(env.SESSION.idFromName(id).toString());
  });

  it("answers a body over 16 KiB with 413, counting bytes: 6,000 euro signs are 18,000 of them", async () => {
    const text = JSON.stringify({ entries: ["€".repeat(6_000)] });
    expect(text.length).toBeLessThan(16 * 1024);
    const res = await call("/v1/memory?cwd=/work/big", { method: "PUT", token: "tok-alpha", text });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: { code: -32600, message: "request body is larger than 16384 bytes" } });
  });

  it("stops reading a body sent without a length once it passes 16 KiB, and answers 413", async () => {
    let sent = 0;
    // An endless chunked body: read to its end, it would never be answered. (The runtime logs
    // "Network connection lost." for the upload the service stops reading: that is this test's sender.)
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 4096;
        controller.enqueue(new Uint8Array(4096).fill(0x20));
      },
    });
    const res = await SELF.fetch("http://hermes.test/v1/memory?cwd=/work/big", {
      method: "PUT",
      headers: { Authorization: "Bearer tok-alpha", "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.77" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: { code: -32600, message: "request body is larger than 16384 bytes" } });
    expect(sent).toBeLessThan(1024 * 1024);
  });

  it("says a lineage of exactly the maximum that ends at its root is complete, and one longer is cut", async () => {
    const sessionId = crypto.randomUUID();
    const insert = (i: number) =>
      env.DB.prepare("INSERT INTO segments (id, acp_session_id, tenant, kind, parent_id, root_id, compression_depth, created_at) VALUES (?, ?, 'alpha', ?, ?, ?, ?, ?)").bind(
        `${sessionId}-${i}`,
        sessionId,
        i === 0 ? "root" : "continuation",
        i === 0 ? null : `${sessionId}-${i - 1}`,
        `${sessionId}-0`,
        i,
        1_000 + i,
      );
    await env.DB.batch(Array.from({ length: 100 }, (_, i) => insert(i)));
    const lineage = async () => (await (await call(`/v1/sessions/${sessionId}/lineage`, { token: "tok-alpha" })).json()) as { chain: unknown[]; truncated: boolean };
    expect(await lineage()).toMatchObject({ truncated: false });
    expect((await lineage()).chain).toHaveLength(100);
    await insert(100).run();
    expect(await lineage()).toMatchObject({ truncated: true });
    expect((await lineage()).chain).toHaveLength(100);
  });

  it("answers a bad query with 400 -32602 and the zod issues", async () => {
    const res = await call("/v1/sessions?cwd=", { token: "tok-alpha" });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error).toMatchObject({ code: -32602, message: "invalid query" });
    expect(error.data[0].path).toEqual(["cwd"]);
  });
});
