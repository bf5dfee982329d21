/**
 * The session's side of its turn and sub-agent slots when a tenant call is
 * still on its way while the session moves on: a lease the tenant grants then
 * must never be left to expire (for up to 90 s it would count against
 * `maxConcurrentTurns` or `maxConcurrentSubagents`).
 * The tenant here is a fake whose answers the test releases one by one, so
 * each case lands inside the call; the store is a real session object's SQLite.
 * It runs in a runtime of its own (`workers-alone`): its fake timers replace the isolate's.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { KEEP_TURN_SLOT_MS, REUSE_GRANT_MS, SessionSlots } from "../../src/tenant/session-slots.js";
import type { TenantEnv } from "../../src/tenant/tenant-slots.js";

/** A turn of the event loop; under fake timers, a microtask (the fake tenant answers with no timer of its own). */
const tick = () => new Promise<void>((r) => (vi.isFakeTimers() ? queueMicrotask(r) : setTimeout(r, 1)));

type GrantTerms = { keep?: boolean; tokensLeft?: number | null };

/** A tenant object whose `acquire` answers wait until the test lets them go. */
function fakeTenant() {
  const released: string[] = [];
  const gates: ((terms: GrantTerms) => void)[] = [];
  let next = 0;
  let expired = false;
  let asks = 0;
  const stub = {
    acquire: ({ holder }: { holder: string }) => {
      asks++;
      return new Promise((resolve) =>
        gates.push((terms) => resolve({ ok: true, lease: { id: `L${++next}`, kind: "turn", holder, expiresAt: Date.now() + 90_000 }, ...terms })),
      );
    },
    renew: async () => (expired ? null : { expiresAt: Date.now() + 90_000 }),
    release: async (id: string) => void released.push(id),
    recordUsage: async () => undefined,
  };
  const tenantEnv = { TENANT: { idFromName: (name: string) => name, get: () => stub } } as unknown as TenantEnv;
  return {
    env: tenantEnv,
    released,
    /** How many `acquire` calls reached the tenant. */
    asks: () => asks,
    expire: () => (expired = true),
    /** Resolves once an `acquire` is waiting for its answer. */
    asked: async () => {
      while (gates.length === 0) await tick();
    },
    /** Lets the oldest waiting `acquire` answer, with what the grant says beyond the lease. */
    grant: async (terms: GrantTerms = {}) => {
      while (gates.length === 0) await tick();
      gates.shift()!(terms);
    },
  };
}

function inFreshObject(run: (store: SessionStore) => Promise<void>): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`slots-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => {
    const store = new SessionStore(ctx.storage.sql);
    store.migrate();
    store.saveRecord({ sessionId: "s-slots", tenant: "alpha", interruptedPrompt: null } as SessionRecord);
    return run(store);
  });
}

describe("a session's turn slot", () => {
  it("goes back when the queue drains while an expired slot is being taken again", async () => {
    await inFreshObject(async (store) => {
      const tenant = fakeTenant();
      const slots = new SessionSlots(tenant.env, store);
      const holding = slots.holdTurn();
      await tenant.grant();
      await holding; // L1
      tenant.expire();
      const renewing = slots.renew(); // L1 expired: it asks for a new slot
      await tenant.asked();
      await slots.releaseTurn(); // the queue drains meanwhile
      await tenant.grant();
      await renewing; // L2 arrives after the drain
      expect(tenant.released).toEqual(["L1", "L2"]);
      expect(store.record()!.tenantLease).toBeNull();
    });
  });

  it("keeps a slot taken again while the queue still works", async () => {
    await inFreshObject(async (store) => {
      const tenant = fakeTenant();
      const slots = new SessionSlots(tenant.env, store);
      const holding = slots.holdTurn();
      await tenant.grant();
      await holding;
      tenant.expire();
      const renewing = slots.renew();
      await tenant.grant();
      await renewing;
      expect(tenant.released).toEqual([]);
      expect(store.record()!.tenantLease).toMatchObject({ id: "L2" });
    });
  });

  it("goes back at once when the session is deleted while the slot is on its way", async () => {
    await inFreshObject(async (store) => {
      const tenant = fakeTenant();
      const slots = new SessionSlots(tenant.env, store);
      const holding = slots.holdTurn();
      store.close(); // session/delete wipes the storage meanwhile
      await tenant.grant();
      await expect(holding).rejects.toThrow(/deleted/);
      expect(tenant.released).toEqual(["L1"]);
    });
  });
});

describe("a turn slot the tenant lets the session keep", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A session holding a slot granted with `terms`; the clock is fake from then on (the grant came on real timers). */
  async function holding(store: SessionStore, terms: GrantTerms) {
    const tenant = fakeTenant();
    const slots = new SessionSlots(tenant.env, store);
    const held = slots.holdTurn();
    await tenant.grant(terms);
    await held;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    return { tenant, slots };
  }

  it("stays after the queue drains: the next prompt starts in it without a tenant call, and it goes back once KEEP_TURN_SLOT_MS pass unused", async () => {
    await inFreshObject(async (store) => {
      const { tenant, slots } = await holding(store, { keep: true, tokensLeft: null });
      await slots.queueDrained();
      await vi.advanceTimersByTimeAsync(KEEP_TURN_SLOT_MS - 1);
      await slots.holdTurn();
      expect(tenant.asks()).toBe(1);
      await slots.queueDrained();
      await vi.advanceTimersByTimeAsync(KEEP_TURN_SLOT_MS - 1);
      expect(tenant.released).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(tenant.released).toEqual(["L1"]);
      expect(store.record()!.tenantLease).toBeNull();
    });
  });

  it("goes back at once when the grant did not allow keeping it, or when the session closes while it is kept", async () => {
    await inFreshObject(async (store) => {
      const { tenant, slots } = await holding(store, { keep: false, tokensLeft: null });
      await slots.queueDrained();
      expect(tenant.released).toEqual(["L1"]);
    });
    await inFreshObject(async (store) => {
      const { tenant, slots } = await holding(store, { keep: true, tokensLeft: null });
      await slots.queueDrained();
      await slots.releaseTurn(); // session/close
      expect(tenant.released).toEqual(["L1"]);
      await vi.advanceTimersByTimeAsync(KEEP_TURN_SLOT_MS);
      expect(tenant.released).toEqual(["L1"]);
    });
  });

  it("is neither kept nor used again unasked when the tenant object answers as older code did (without keep and tokensLeft)", async () => {
    await inFreshObject(async (store) => {
      const { tenant, slots } = await holding(store, {});
      const queued = slots.holdTurn(); // a prompt queued behind the running turn
      await tenant.grant({});
      await queued;
      expect(tenant.asks()).toBe(2);
      await slots.queueDrained();
      expect(tenant.released).toEqual(["L2"]);
    });
  });

  it("is asked for again once the session spent the day's tokens the grant left, or the grant is REUSE_GRANT_MS old", async () => {
    await inFreshObject(async (store) => {
      const { tenant, slots } = await holding(store, { keep: true, tokensLeft: 100 });
      slots.record({ turns: 1, modelCalls: 1, inputTokens: 60, outputTokens: 39 });
      await slots.queueDrained();
      await slots.holdTurn(); // 99 of 100 spent: still its own to start
      expect(tenant.asks()).toBe(1);
      slots.record({ outputTokens: 1 });
      await slots.queueDrained();
      const spent = slots.holdTurn();
      await tenant.grant({ keep: true, tokensLeft: 5_000 });
      await spent;
      expect(tenant.asks()).toBe(2);
      await slots.queueDrained();
      vi.setSystemTime(Date.now() + REUSE_GRANT_MS);
      const aged = slots.holdTurn();
      await tenant.grant({ keep: true, tokensLeft: 5_000 });
      await aged;
      expect(tenant.asks()).toBe(3);
      expect(tenant.released).toEqual([]);
    });
  });
});

describe("a sub-agent's slot", () => {
  it("goes back when the sub-agent ends while its expired slot is being taken again", async () => {
    // Only the renewal's interval is faked: the fake tenant's answers still come on real timers.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      await inFreshObject(async (store) => {
        const tenant = fakeTenant();
        const slots = new SessionSlots(tenant.env, store);
        const holding = slots.holdSubagent("sub-1", new AbortController().signal);
        await tenant.grant();
        const release = await holding; // L1
        tenant.expire();
        vi.advanceTimersByTime(30_000); // the renewal finds L1 gone and asks for a new slot
        await tenant.asked();
        await release(); // the sub-agent ends meanwhile
        await tenant.grant(); // L2 arrives after the end
        for (let i = 0; i < 20 && tenant.released.length < 2; i++) await new Promise((r) => setTimeout(r, 1));
        expect(tenant.released).toEqual(["L1", "L2"]);
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
