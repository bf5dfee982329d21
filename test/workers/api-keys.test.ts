import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sleep, TestClient, upgrade } from "./acp-test-client.js";
import { admin, call, createKey, json, uniqueTenant } from "./admin-client.js";

const KEY_SHAPE = /^he_[A-Za-z0-9_-]{43}$/;

describe("admin API authentication", () => {
  it("answers 401 without a token and 403 with a wrong one, on every admin route", async () => {
    for (const [method, path] of [["GET", "/keys"], ["POST", "/keys"], ["DELETE", "/keys/key_x"], ["GET", "/tenants/a/limits"], ["PUT", "/tenants/a/limits"], ["GET", "/usage?tenant=a"], ["GET", "/nope"]] as const) {
      const missing = await admin(path, { method, token: null });
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(await missing.json()).toEqual({
        error: { code: -32000, message: "missing admin token: send Authorization: Bearer <HERMES_ADMIN_TOKEN>" },
      });
      const wrong = await admin(path, { method, token: "not-the-admin-token" });
      expect(wrong.status, `${method} ${path}`).toBe(403);
      expect(await wrong.json()).toEqual({ error: { code: -32001, message: "wrong admin token" } });
    }
  });

  it("does not take a tenant's key or bootstrap token as the admin token", async () => {
    const { key } = await createKey(uniqueTenant());
    expect((await admin("/keys", { token: key })).status).toBe(403);
    expect((await admin("/keys", { token: "tok-alpha" })).status).toBe(403);
  });
});

describe("managed keys", () => {
  it("creates a key shown once, lists it without the secret, and authenticates /acp and REST with it", async () => {
    const tenant = uniqueTenant();
    const res = await admin("/keys", { method: "POST", body: { tenant, label: "Ada's laptop" } });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(KEY_SHAPE), tenant, user: null, label: "Ada's laptop", expiresAt: null });

    const listed = await json(admin(`/keys?tenant=${tenant}`));
    expect(listed.keys).toEqual([
      { id: created.id, tenant, user: null, label: "Ada's laptop", status: "active", createdAt: expect.any(String), lastUsedAt: null, expiresAt: null, revokedAt: null },
    ]);
    expect(listed.truncated).toBe(false);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(created.id).first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(row!.sha256).toMatch(/^[0-9a-f]{64}$/);

    const client = await TestClient.ready({ token: created.key });
    const sessionId = await client.newSession("/work/keys");
    const own = await call(`/v1/sessions/${sessionId}`, { token: created.key });
    expect((await json(own)).sessionId).toBe(sessionId);
    // The key's tenant owns the session: another tenant's token cannot see it.
    expect((await call(`/v1/sessions/${sessionId}`, { token: "tok-alpha" })).status).toBe(404);
    client.close();
  });

  it("lists at most 1,000 keys and says when there are more", async () => {
    const tenant = uniqueTenant();
    const insert = (i: number) =>
      env.DB.prepare("INSERT INTO api_keys (id, tenant, label, sha256, created_at) VALUES (?, ?, 'bulk', ?, ?)").bind(`key_${tenant}_${i}`, tenant, `${tenant}-${String(i).padStart(6, "0")}`.padEnd(64, "0"), i);
    for (let start = 0; start < 1_000; start += 250) await env.DB.batch(Array.from({ length: 250 }, (_, i) => insert(start + i)));
    const full = await json(admin(`/keys?tenant=${tenant}`));
    expect(full.keys).toHaveLength(1_000);
    expect(full.truncated).toBe(false);
    await insert(1_000).run();
    const more = await json(admin(`/keys?tenant=${tenant}`));
    expect(more.keys).toHaveLength(1_000);
    expect(more.truncated).toBe(true);
    expect(more.keys[0].id).toBe(`key_${tenant}_1000`); // newest first
  });

  it("a browser can offer the key as a subprotocol token", async () => {
    const { key } = await createKey(uniqueTenant());
    const client = await TestClient.open({ token: null, protocols: ["acp", `hermes-edge-token.${key}`] });
    expect(client.response.headers.get("Sec-WebSocket-Protocol")).toBe("acp");
    client.close();
  });

  it("answers an unknown, revoked or expired key with 401 saying which, before any upgrade", async () => {
    const unknown = await upgrade({ token: `he_${"A".repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.webSocket).toBeNull();
    expect(await unknown.json()).toEqual({ error: { code: -32000, message: "unknown key", data: { reason: "unknown" } } });

    const tenant = uniqueTenant();
    const revoked = await createKey(tenant);
    expect((await admin(`/keys/${revoked.id}`, { method: "DELETE" })).status).toBe(200);
    const refused = await upgrade({ token: revoked.key });
    expect(refused.status).toBe(401);
    expect(refused.webSocket).toBeNull();
    expect(await refused.json()).toEqual({ error: { code: -32000, message: "key revoked", data: { reason: "revoked" } } });
    expect(await json(call("/v1/sessions", { token: revoked.key }))).toMatchObject({ error: { message: "key revoked" } });

    const expiring = await createKey(tenant, "short", new Date(Date.now() + 800).toISOString());
    expect((await upgrade({ token: expiring.key })).status).toBe(101);
    await sleep(900);
    const expired = await upgrade({ token: expiring.key });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: { code: -32000, message: "key expired", data: { reason: "expired" } } });
    const statuses = (await json(admin(`/keys?tenant=${tenant}`))).keys.map((k: { label: string; status: string }) => [k.label, k.status]);
    expect(statuses).toEqual([["short", "expired"], ["test", "revoked"]]);
  });

  it("revokes idempotently and answers 404 for an unknown key id", async () => {
    const { id } = await createKey(uniqueTenant());
    const first = await json(admin(`/keys/${id}`, { method: "DELETE" }));
    expect(first).toMatchObject({ id, status: "revoked", revokedAt: expect.any(String) });
    await sleep(5);
    expect((await json(admin(`/keys/${id}`, { method: "DELETE" }))).revokedAt).toBe(first.revokedAt);
    for (const unknown of ["key_AAAAAAAAAAAAAAAA", "nope"]) {
      const res = await admin(`/keys/${unknown}`, { method: "DELETE" });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: -32002, message: "no such key" } });
    }
  });

  it("rejects bad bodies and queries with 400 and the zod issues", async () => {
    const cases: [unknown, string][] = [
      [{ label: "x" }, "tenant"],
      [{ tenant: "a b", label: "x" }, "tenant"],
      [{ tenant: "a", label: "" }, "label"],
      [{ tenant: "a", label: "x", expiresAt: "tomorrow" }, "expiresAt"],
      [{ tenant: "a", label: "x", expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt"],
      [{ tenant: "a", label: "x", admin: true }, ""],
      [["a"], ""],
    ];
    for (const [body, path] of cases) {
      const res = await admin("/keys", { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe(-32602);
      expect(error.message).toBe("invalid body");
      expect(error.data.map((i: { path: string[] }) => i.path.join("."))).toContain(path);
    }
    const notJson = await admin("/keys", { method: "POST", text: "{tenant:" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: { code: -32700, message: "request body is not JSON" } });
    const badQuery = await admin("/keys?tenant=%20");
    expect(badQuery.status).toBe(400);
    expect((await json(badQuery)).error).toMatchObject({ code: -32602, message: "invalid query" });
  });

  it("writes last_used_at at most once a minute per key", async () => {
    const created = await createKey(uniqueTenant());
    const lastUsed = async () =>
      (await env.DB.prepare("SELECT last_used_at AS t FROM api_keys WHERE id = ?").bind(created.id).first<{ t: number | null }>())!.t;
    expect((await call("/v1/sessions", { token: created.key })).status).toBe(200);
    let first: number | null = null;
    for (let i = 0; i < 50 && first === null; i++) {
      await sleep(20);
      first = await lastUsed();
    }
    expect(first).not.toBeNull();
    for (let i = 0; i < 3; i++) expect((await call("/v1/sessions", { token: created.key })).status).toBe(200);
    await sleep(100);
    expect(await lastUsed()).toBe(first);
    // A minute later (moved back in storage), the next use writes again.
    await env.DB.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?").bind(first! - 61_000, created.id).run();
    expect((await call("/v1/sessions", { token: created.key })).status).toBe(200);
    let second: number | null = first! - 61_000;
    for (let i = 0; i < 50 && second === first! - 61_000; i++) {
      await sleep(20);
      second = await lastUsed();
    }
    expect(second!).toBeGreaterThanOrEqual(first!);
  });
});

describe("repeated failures", () => {
  it("answer 429 from one address once it failed 10 times in a minute; other addresses and valid keys are unaffected", async () => {
    const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const statuses: number[] = [];
    let limited: Response | undefined;
    // The binding counts in fixed one-minute windows; a window boundary can reset it once, hence up to 21 tries.
    for (let i = 0; i < 21 && !limited; i++) {
      const res = await call("/v1/sessions", { token: "wrong", address });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(limited).toBeDefined();
    expect(limited!.headers.get("Retry-After")).toBe("60");
    expect(await limited!.json()).toEqual({
      error: { code: -32004, message: "too many failed authentication attempts from this address; try again later", data: { retryAfterSeconds: 60 } },
    });
    expect((await upgrade({ token: "wrong", headers: { "CF-Connecting-IP": address } })).status).toBe(429);
    expect((await admin("/keys", { token: "wrong", address })).status).toBe(429);
    expect((await call("/v1/sessions", { token: "wrong" })).status).toBe(401);
    expect((await call("/v1/sessions", { token: "tok-alpha", address })).status).toBe(200);
  });
});

describe("revocation of a live connection", () => {
  async function connectionStub(client: TestClient) {
    const id = client.response.headers.get("Acp-Connection-Id")!;
    return env.CONNECTION.get(env.CONNECTION.idFromString(id));
  }

  it("closes the revoked key's open WebSocket with 4401 'key revoked' at the next check, within 60 s", async () => {
    const { id, key } = await createKey(uniqueTenant());
    const client = await TestClient.ready({ token: key });
    const other = await TestClient.ready({ token: (await createKey(uniqueTenant())).key });
    const stub = await connectionStub(client);
    const alarmAt = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarmAt! - Date.now()).toBeLessThanOrEqual(30_000);

    // While the key is active, a check keeps the socket and schedules the next one.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(client.closed).toBeNull();
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();

    const closed = new Promise<CloseEvent>((resolve) => client.ws.addEventListener("close", resolve));
    expect((await admin(`/keys/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await upgrade({ token: key })).status).toBe(401);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const event = await closed;
    expect([event.code, event.reason]).toEqual([4401, "key revoked"]);
    // Other keys' connections stay open and usable.
    expect((await other.call("session/list", {})).sessions).toEqual([]);
    other.close();
  });

  it("does not watch connections made with a bootstrap token", async () => {
    const client = await TestClient.ready({ token: "tok-alpha" });
    const stub = await connectionStub(client);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();
    client.close();
  });
});
