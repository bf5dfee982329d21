/**
 * The tenant object through the client module session code uses
 * (src/tenant/tenant-slots.ts), and the admin and usage routes around it.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { acquireSubagent, acquireTurn, recordUsage, releaseLease, renewLease, retakeLease } from "../../src/tenant/tenant-slots.js";
import { usageBatch, utcDay } from "../../src/tenant/usage.js";
import { sleep } from "./acp-test-client.js";
import app from "../../src/worker.js";
import { ADMIN_TOKEN, admin, call, createKey, json, uniqueTenant } from "./admin-client.js";

async function withLimits(limits: Record<string, number | null>): Promise<string> {
  const tenant = uniqueTenant();
  const res = await admin(`/tenants/${tenant}/limits`, { method: "PUT", body: limits });
  if (res.status !== 200) throw new Error(`set limits failed: ${res.status} ${await res.text()}`);
  return tenant;
}

async function refusal(promise: Promise<unknown>): Promise<RequestError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RequestError);
  return err as RequestError;
}

describe("turn slots", () => {
  it("refuses a turn over maxConcurrentTurns with -32003 and data { limit, used, max }", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: 2 });
    await acquireTurn(env, tenant, "s1");
    await acquireTurn(env, tenant, "s2");
    const err = await refusal(acquireTurn(env, tenant, "s3"));
    expect(err.code).toBe(-32003);
    expect(err.message).toBe("tenant limit reached: maxConcurrentTurns (2 of 2 turns running)");
    expect(err.data).toEqual({ limit: "maxConcurrentTurns", used: 2, max: 2 });
    expect(err.toErrorResponse()).toEqual({ code: -32003, message: err.message, data: err.data });
  });

  it("does not count a session twice: asking again while holding a turn returns the same lease", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: 2 });
    const { lease: first } = await acquireTurn(env, tenant, "busy");
    const { lease: queued } = await acquireTurn(env, tenant, "busy");
    expect(queued.id).toBe(first.id);
    expect(queued.expiresAt).toBeGreaterThanOrEqual(first.expiresAt);
    await acquireTurn(env, tenant, "other");
    await refusal(acquireTurn(env, tenant, "third"));
  });

  it("says with each grant whether the session may keep the slot after its queue drains, and the day's tokens left", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: 4, dailyTokens: 1_000 });
    await recordUsage(env, tenant, usageBatch({ turns: 1, inputTokens: 60, outputTokens: 40 }));
    expect(await acquireTurn(env, tenant, "k1")).toMatchObject({ keep: true, tokensLeft: 900 });
    expect(await acquireTurn(env, tenant, "k2")).toMatchObject({ keep: true, tokensLeft: 900 });
    // Three of four would leave less room than it takes.
    expect(await acquireTurn(env, tenant, "k3")).toMatchObject({ keep: false, tokensLeft: 900 });
  });

  it("frees the slot on release", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: 1 });
    const { lease } = await acquireTurn(env, tenant, "a");
    await refusal(acquireTurn(env, tenant, "b"));
    await releaseLease(env, lease);
    await releaseLease(env, lease); // twice is harmless
    expect((await acquireTurn(env, tenant, "b")).lease.holder).toBe("b");
  });

  it("lets a lease expire when its holder stops renewing (an evicted session holds no slot)", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: 1 });
    const { lease } = await acquireTurn(env, tenant, "evicted", 1_000);
    expect(await renewLease(env, lease, 1_000)).toBe(true);
    await refusal(acquireTurn(env, tenant, "next"));
    await sleep(1_100);
    expect(await renewLease(env, lease)).toBe(false);
    const { lease: next } = await acquireTurn(env, tenant, "next");
    expect(next.holder).toBe("next");
    expect(next.expiresAt - Date.now()).toBeGreaterThan(60_000);
  });

  it("takes a lease the tenant forgot again in one attempt, and only while there is room", async () => {
    const tenant = await withLimits({ maxConcurrentSubagents: 1 });
    const lost = await acquireSubagent(env, tenant, "running", { ttlMs: 1_000 });
    await sleep(1_100); // as if the tenant object had restarted: it no longer counts the lease
    expect(await renewLease(env, lost)).toBe(false);
    const again = await retakeLease(env, lost);
    expect(again).toMatchObject({ kind: "subagent", holder: "running" });
    expect(await retakeLease(env, { ...lost, holder: "another" })).toBeNull();
  });

  it("applies no limit where neither the default nor the override sets one", async () => {
    const tenant = await withLimits({ maxConcurrentTurns: null });
    for (let i = 0; i < 12; i++) await acquireTurn(env, tenant, `s${i}`);
  });
});

describe("sub-agent slots", () => {
  it("wait while the tenant is at maxConcurrentSubagents and start once a slot frees, without using turn slots", async () => {
    const tenant = await withLimits({ maxConcurrentSubagents: 1, maxConcurrentTurns: 1 });
    await acquireTurn(env, tenant, "parent");
    const first = await acquireSubagent(env, tenant, "child-1");
    let started = false;
    const waiting = acquireSubagent(env, tenant, "child-2", { pollMs: 20 }).then((lease) => {
      started = true;
      return lease;
    });
    await sleep(150);
    expect(started).toBe(false);
    await releaseLease(env, first);
    expect((await waiting).holder).toBe("child-2");
  });

  it("stop waiting when the pool's signal aborts", async () => {
    const tenant = await withLimits({ maxConcurrentSubagents: 1 });
    await acquireSubagent(env, tenant, "busy");
    const controller = new AbortController();
    const waiting = acquireSubagent(env, tenant, "child", { signal: controller.signal, pollMs: 20 });
    await sleep(60);
    controller.abort(new Error("turn cancelled"));
    await expect(waiting).rejects.toThrow("turn cancelled");
  });

  it("refuses at once, without waiting, when the tenant allows no sub-agents", async () => {
    const tenant = await withLimits({ maxConcurrentSubagents: 0 });
    await expect(acquireSubagent(env, tenant, "child", { pollMs: 20 })).rejects.toMatchObject({ code: -32003 });
  });
});

describe("daily token budget", () => {
  it("refuses turns and sub-agents once today's tokens reach dailyTokens, with retryAfterSeconds until 00:00 UTC", async () => {
    const tenant = await withLimits({ dailyTokens: 1_000 });
    await recordUsage(env, tenant, usageBatch({ turns: 1, modelCalls: 1, inputTokens: 600, outputTokens: 300 }));
    const { lease } = await acquireTurn(env, tenant, "s");
    await releaseLease(env, lease);
    await recordUsage(env, tenant, usageBatch({ turns: 1, modelCalls: 1, inputTokens: 50, outputTokens: 50 }));
    const err = await refusal(acquireTurn(env, tenant, "s"));
    expect(err.code).toBe(-32003);
    const data = err.data as { limit: string; used: number; max: number; retryAfterSeconds: number };
    expect(data).toMatchObject({ limit: "dailyTokens", used: 1_000, max: 1_000 });
    expect(data.retryAfterSeconds).toBeGreaterThan(0);
    expect(data.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect(err.message).toMatch(/^tenant limit reached: dailyTokens \(1000 of 1000 tokens used today \(UTC\); retry in \d+ s\)$/);
    // A sub-agent does not wait until midnight: it fails with the same error.
    expect((await refusal(acquireSubagent(env, tenant, "child", { pollMs: 20 }))).code).toBe(-32003);
  });
});

describe("PUT/GET /v1/admin/tenants/:tenant/limits", () => {
  it("shows the defaults from HERMES_TENANT_LIMITS, the overrides and what applies, with live slots", async () => {
    const tenant = uniqueTenant();
    const initial = await json(admin(`/tenants/${tenant}/limits`));
    // The workers project's own HERMES_TENANT_LIMITS (vitest.config.ts).
    const defaults = JSON.parse(env.HERMES_TENANT_LIMITS!);
    expect(initial).toEqual({ tenant, limits: defaults, overrides: {}, defaults, active: { turns: 0, subagents: 0 } });
    const put = await admin(`/tenants/${tenant}/limits`, { method: "PUT", body: { maxConcurrentTurns: 1, dailyTokens: null } });
    expect(put.status).toBe(200);
    await acquireTurn(env, tenant, "s");
    expect(await json(admin(`/tenants/${tenant}/limits`))).toEqual({
      tenant,
      limits: { maxConcurrentTurns: 1, maxConcurrentSubagents: defaults.maxConcurrentSubagents },
      overrides: { maxConcurrentTurns: 1, dailyTokens: null },
      defaults,
      active: { turns: 1, subagents: 0 },
    });
    // PUT replaces the overrides: what is left out falls back to the default.
    expect((await json(admin(`/tenants/${tenant}/limits`, { method: "PUT", body: {} }))).limits).toEqual(defaults);
  });

  it("rejects bad bodies and tenant names with 400 and the zod issues", async () => {
    for (const body of [{ maxConcurrentTurns: -1 }, { maxConcurrentTurns: 1.5 }, { dailyTokens: "lots" }, { maxTurns: 3 }, [1]]) {
      const res = await admin("/tenants/acme/limits", { method: "PUT", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: -32602, message: "invalid body", data: expect.any(Array) });
    }
    const notJson = await admin("/tenants/acme/limits", { method: "PUT", text: "nope" });
    expect((await json(notJson)).error.code).toBe(-32700);
    const badName = await admin(`/tenants/${encodeURIComponent("a b")}/limits`);
    expect(badName.status).toBe(400);
    expect((await json(badName)).error).toMatchObject({ code: -32602, message: "invalid tenant" });
  });
});

describe("usage", () => {
  it("adds up several turns and a sub-agent per UTC day for GET /v1/usage and GET /v1/admin/usage", async () => {
    const tenant = uniqueTenant();
    const { key } = await createKey(tenant);
    await recordUsage(env, tenant, usageBatch({ turns: 1, modelCalls: 2, inputTokens: 100, outputTokens: 20, toolCalls: 1 }));
    await recordUsage(env, tenant, usageBatch({ turns: 1, modelCalls: 3, inputTokens: 300, outputTokens: 40, toolCalls: 2 }));
    await recordUsage(env, tenant, usageBatch({ subagents: 1, modelCalls: 1, inputTokens: 50, outputTokens: 5 }));
    await recordUsage(env, uniqueTenant(), usageBatch({ turns: 5, inputTokens: 9_999 }));
    const today = utcDay(Date.now());
    const expected = { turns: 2, modelCalls: 6, inputTokens: 450, outputTokens: 65, toolCalls: 3, subagents: 1 };

    const own = await json(call(`/v1/usage?from=${today}&to=${today}`, { token: key }));
    expect(own).toEqual({ tenant, from: today, to: today, days: [{ date: today, ...expected }], total: expected });
    const byDefault = await json(call("/v1/usage", { token: key }));
    expect(byDefault.to).toBe(today);
    expect(byDefault.days).toEqual([{ date: today, ...expected }]);
    expect(await json(admin(`/usage?tenant=${tenant}&from=${today}&to=${today}`))).toEqual(own);

    const empty = await json(call("/v1/usage?from=2020-01-01&to=2020-01-31", { token: key }));
    expect(empty).toMatchObject({ days: [], total: { turns: 0, inputTokens: 0 } });
  });

  it("rejects bad ranges with 400 and needs a tenant on the admin route", async () => {
    const { key } = await createKey(uniqueTenant());
    for (const query of ["from=2026-02-30", "from=yesterday", "from=2026-03-02&to=2026-03-01", "from=2024-01-01&to=2025-12-31"]) {
      const res = await call(`/v1/usage?${query}`, { token: key });
      expect(res.status, query).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: -32602, message: "invalid query", data: expect.any(Array) });
    }
    const noTenant = await admin("/usage");
    expect(noTenant.status).toBe(400);
    expect((await json(noTenant)).error.data[0].path).toEqual(["tenant"]);
    expect((await call("/v1/usage")).status).toBe(401);
  });
});

describe("admin limits with an unusable HERMES_TENANT_LIMITS", () => {
  // The Worker's own fetch with the one binding changed; everything else is the project's.
  const withBadDefaults = (path: string, init: RequestInit) =>
    app.fetch(new Request(`http://hermes.test/v1/admin${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json", ...init.headers } }), {
      ...env,
      HERMES_TENANT_LIMITS: "{not json",
    });

  it("tells the admin why, and a PUT stores nothing", async () => {
    const tenant = uniqueTenant();
    for (const [method, body] of [["GET", undefined], ["PUT", JSON.stringify({ maxConcurrentTurns: 1 })]] as const) {
      const res = await withBadDefaults(`/tenants/${tenant}/limits`, { method, ...(body ? { body } : {}) });
      expect(res.status, method).toBe(500);
      expect(await res.json(), method).toEqual({
        error: { code: -32603, message: "HERMES_TENANT_LIMITS is not valid JSON", data: { variable: "HERMES_TENANT_LIMITS" } },
      });
    }
    // With the project's defaults again, the tenant has no overrides: the refused PUT left none.
    expect((await json(admin(`/tenants/${tenant}/limits`))).overrides).toEqual({});
  });
});
