/**
 * The tenant object's ledger on real DO SQLite and real D1, with the D1 side
 * counted: usage is written by a flush (the alarm, or a read), several turns
 * in one write, and never for leases.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { UsageIndex } from "../../src/db/usage-index.js";
import { FLUSH_DELAY_MS, FLUSH_RETRY_MS, TenantLedger } from "../../src/tenant/tenant-ledger.js";
import { TenantStore } from "../../src/tenant/tenant-store.js";
import { usageBatch, utcDay, type UsageDay } from "../../src/tenant/usage.js";
import { acquireTurn, recordUsage } from "../../src/tenant/tenant-slots.js";
import { sleep } from "./acp-test-client.js";
import { uniqueTenant } from "./admin-client.js";

class CountingUsage extends UsageIndex {
  writes: UsageDay[][] = [];
  failNext = false;
  override async write(tenant: string, days: UsageDay[], now: number): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("D1 unavailable");
    }
    this.writes.push(days);
    await super.write(tenant, days, now);
  }
}

function inTenantObject<R>(tenant: string, run: (ctx: DurableObjectState) => Promise<R>): Promise<R> {
  return runInDurableObject(env.TENANT.get(env.TENANT.idFromName(tenant)), (_instance, ctx) => run(ctx));
}

function ledgerFor(ctx: DurableObjectState, tenant: string, usage: UsageIndex, now = Date.now, flushRequests: number[] = []) {
  return new TenantLedger({
    tenant,
    store: new TenantStore(ctx.storage.sql),
    usage,
    defaults: () => ({ maxConcurrentTurns: 2 }),
    now,
    newId: () => crypto.randomUUID(),
    flushWithin: async (ms) => {
      flushRequests.push(ms);
      await ctx.storage.setAlarm(Date.now() + ms);
    },
  });
}

async function d1Day(tenant: string, day: string) {
  return env.DB.prepare("SELECT turns, model_calls, input_tokens FROM tenant_usage WHERE tenant = ? AND day = ?").bind(tenant, day).first();
}

describe("tenant ledger", () => {
  it("writes D1 from a flush, several turns in one write, and never for acquire, renew or release", async () => {
    const tenant = uniqueTenant();
    const usage = new CountingUsage(env.DB);
    const flushRequests: number[] = [];
    await inTenantObject(tenant, async (ctx) => {
      const ledger = ledgerFor(ctx, tenant, usage, Date.now, flushRequests);
      for (let turn = 0; turn < 3; turn++) {
        const granted = ledger.acquire({ kind: "turn", holder: "s", ttlMs: 60_000 });
        if (!granted.ok) throw new Error("refused");
        ledger.renew(granted.lease.id, 60_000);
        await ledger.release(granted.lease.id, usageBatch({ turns: 1, modelCalls: 2, inputTokens: 10 }));
      }
      // Each turn's usage asked for a flush within a second; none has written D1 yet.
      expect(flushRequests).toEqual([FLUSH_DELAY_MS, FLUSH_DELAY_MS, FLUSH_DELAY_MS]);
      expect(usage.writes).toHaveLength(0);
      expect(await ledger.flush()).toBe(true);
      expect(await ledger.flush()).toBe(true); // nothing left: no second write
    });
    expect(usage.writes.map((w) => w.length)).toEqual([1]);
    expect(await d1Day(tenant, utcDay(Date.now()))).toEqual({ turns: 3, model_calls: 6, input_tokens: 30 });
  });

  it("counts leases it holds in memory: a released slot is free at once, an expired one too", async () => {
    const tenant = uniqueTenant();
    let clock = Date.now();
    await inTenantObject(tenant, async (ctx) => {
      const ledger = ledgerFor(ctx, tenant, new CountingUsage(env.DB), () => clock);
      const a = ledger.acquire({ kind: "turn", holder: "a", ttlMs: 5_000 });
      const b = ledger.acquire({ kind: "turn", holder: "b", ttlMs: 5_000 });
      expect([a.ok, b.ok]).toEqual([true, true]);
      expect(ledger.acquire({ kind: "turn", holder: "c", ttlMs: 5_000 })).toMatchObject({ ok: false, refusal: { limit: "maxConcurrentTurns" } });
      if (a.ok) await ledger.release(a.lease.id);
      expect(ledger.acquire({ kind: "turn", holder: "c", ttlMs: 5_000 }).ok).toBe(true);
      clock += 6_000;
      if (b.ok) expect(ledger.renew(b.lease.id, 5_000)).toBeNull();
      expect(ledger.view().active.turns).toBe(0);
    });
  });

  it("keeps a failed flush pending and writes it from the alarm", async () => {
    const tenant = uniqueTenant();
    const usage = new CountingUsage(env.DB);
    usage.failNext = true;
    const alarmAt = await inTenantObject(tenant, async (ctx) => {
      const ledger = ledgerFor(ctx, tenant, usage);
      await ledger.record(usageBatch({ turns: 1, inputTokens: 7 }));
      expect(await ledger.flush()).toBe(false);
      return ctx.storage.getAlarm();
    });
    expect(alarmAt! - Date.now()).toBeLessThanOrEqual(FLUSH_RETRY_MS);
    expect(await d1Day(tenant, utcDay(Date.now()))).toBeNull();
    // The object's own alarm flushes what the failed write left pending.
    expect(await runDurableObjectAlarm(env.TENANT.get(env.TENANT.idFromName(tenant)))).toBe(true);
    expect(await d1Day(tenant, utcDay(Date.now()))).toEqual({ turns: 1, model_calls: 0, input_tokens: 7 });
  });

  it("runs one flush at a time, so an older total never lands in D1 after a newer one", async () => {
    const tenant = uniqueTenant();
    // The first write is slow: without ordering, the second (newer) lands first and the first overwrites it.
    class SlowFirstWrite extends CountingUsage {
      #calls = 0;
      override async write(t: string, days: UsageDay[], now: number): Promise<void> {
        if (this.#calls++ === 0) await sleep(100);
        await super.write(t, days, now);
      }
    }
    const usage = new SlowFirstWrite(env.DB);
    await inTenantObject(tenant, async (ctx) => {
      const ledger = ledgerFor(ctx, tenant, usage);
      await ledger.record(usageBatch({ turns: 1 }));
      const first = ledger.flush();
      await ledger.record(usageBatch({ turns: 1 }));
      const second = ledger.flush();
      expect(await Promise.all([first, second])).toEqual([true, true]);
    });
    const written = usage.writes.map((w) => w[0]!.turns);
    expect(written).toEqual([...written].sort((a, b) => a - b)); // never an older total after a newer one
    expect(written.at(-1)).toBe(2);
    expect(await d1Day(tenant, utcDay(Date.now()))).toMatchObject({ turns: 2 });
  });

  it("attributes usage to the UTC day it was recorded on and writes only the changed day", async () => {
    const tenant = uniqueTenant();
    const usage = new CountingUsage(env.DB);
    let clock = Date.parse("2026-03-01T23:59:59Z");
    await inTenantObject(tenant, async (ctx) => {
      const ledger = ledgerFor(ctx, tenant, usage, () => clock);
      await ledger.record(usageBatch({ turns: 1 }));
      await ledger.flush();
      clock = Date.parse("2026-03-02T00:00:01Z");
      await ledger.record(usageBatch({ turns: 2 }));
      await ledger.flush();
    });
    expect(usage.writes.map((w) => w.map((d) => [d.date, d.turns]))).toEqual([[["2026-03-01", 1]], [["2026-03-02", 2]]]);
  });

  it("flushes from an alarm that starts the object anew, where the runtime gives no name", async () => {
    const tenant = uniqueTenant();
    await recordUsage(env, tenant, usageBatch({ turns: 1, inputTokens: 5 }));
    const id = env.TENANT.idFromName(tenant);
    await abortAllDurableObjects();
    // As after a deploy: the alarm (due FLUSH_DELAY_MS later, run now) wakes a fresh instance by id alone.
    expect(await runDurableObjectAlarm(env.TENANT.get(env.TENANT.idFromString(id.toString())))).toBe(true);
    expect(await d1Day(tenant, utcDay(Date.now()))).toEqual({ turns: 1, model_calls: 0, input_tokens: 5 });
    expect((await acquireTurn(env, tenant, "after")).lease.holder).toBe("after");
  });
});
