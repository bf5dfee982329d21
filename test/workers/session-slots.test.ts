/**
 * The session's side of its turn and sub-agent slots when a tenant call is
 * still on its way while the session moves on: a lease the tenant grants then
 * must never be left to expire (for up to 90 s it would count against
 * `maxConcurrentTurns` or `maxConcurrentSubagents`).
 * The tenant here is a fake whose answers the test releases one by one, so
 * each case lands inside the call; the store is a real session object's SQLite.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { SessionSlots } from "../../src/tenant/session-slots.js";
import type { TenantEnv } from "../../src/tenant/tenant-slots.js";

/** A tenant object whose `acquire` answers wait until the test lets them go. */
function fakeTenant() {
  const released: string[] = [];
  const gates: (() => void)[] = [];
  let next = 0;
  let expired = false;
  const stub = {
    acquire: ({ holder }: { holder: string }) =>
      new Promise((resolve) => gates.push(() => resolve({ ok: true, lease: { id: `L${++next}`, kind: "turn", holder, expiresAt: Date.now() + 90_000 } }))),
    renew: async () => (expired ? null : { expiresAt: Date.now() + 90_000 }),
    release: async (id: string) => void released.push(id),
    recordUsage: async () => undefined,
  };
  const tenantEnv = { TENANT: { idFromName: (name: string) => name, get: () => stub } } as unknown as TenantEnv;
  return {
    env: tenantEnv,
    released,
    expire: () => (expired = true),
    /** Resolves once an `acquire` is waiting for its answer. */
    asked: async () => {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
    },
    /** Lets the oldest waiting `acquire` answer. */
    grant: async () => {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
      gates.shift()!();
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
