/**
 * Usage goes from a session to its tenant object in batches with ids, so a
 * send whose reply was lost can be repeated without counting twice: on the
 * tenant object itself (across a restart of it), and from `SessionSlots` when
 * a slot's release loses its request or its reply, also across a restart.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { SessionSlots } from "../../src/tenant/session-slots.js";
import { BATCH_MEMORY_MS } from "../../src/tenant/tenant-ledger.js";
import { flushUsage, recordUsage, type TenantEnv } from "../../src/tenant/tenant-slots.js";
import { usageBatch, utcDay } from "../../src/tenant/usage.js";
import { uniqueTenant } from "./admin-client.js";

async function today(tenant: string) {
  await flushUsage(env, tenant);
  return env.DB.prepare("SELECT turns, input_tokens FROM tenant_usage WHERE tenant = ? AND day = ?").bind(tenant, utcDay(Date.now())).first();
}

type Loss = "none" | "reply" | "request";

/**
 * The real tenant objects, except that the next `release` loses its reply (after the tenant acted) or its request (before).
 * `sent` lists the ids of the usage batches sent, by `release` or `recordUsage`.
 */
function lossyTenants(): { env: TenantEnv; loseNextRelease(loss: Loss): void; sent: string[] } {
  let next: Loss = "none";
  const sent: string[] = [];
  const lossy = {
    idFromName: (name: string) => env.TENANT.idFromName(name),
    get: (id: DurableObjectId) => {
      const real = env.TENANT.get(id);
      return {
        acquire: (...args: Parameters<typeof real.acquire>) => real.acquire(...args),
        recordUsage: (...args: Parameters<typeof real.recordUsage>) => {
          sent.push(args[0].id);
          return real.recordUsage(...args);
        },
        release: async (...args: Parameters<typeof real.release>) => {
          if (args[1]) sent.push(args[1].id);
          const loss = next;
          next = "none";
          if (loss !== "request") await real.release(...args);
          if (loss !== "none") throw new Error("Network connection lost.");
        },
      };
    },
  };
  return { env: { TENANT: lossy } as unknown as TenantEnv, loseNextRelease: (loss) => (next = loss), sent };
}

/** A session record in a fresh session object's SQLite, and what runs against it there. */
function inSession(tenant: string, run: (store: SessionStore) => Promise<void>): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`usage-batches-${crypto.randomUUID()}`));
  return runInDurableObject(stub, async (_instance, ctx) => {
    const store = new SessionStore(ctx.storage.sql);
    store.migrate();
    store.saveRecord({ sessionId: "s-usage", tenant, interruptedPrompt: null } as SessionRecord);
    await run(store);
  });
}

async function oneTurn(slots: SessionSlots, inputTokens: number): Promise<void> {
  await slots.holdTurn();
  slots.record({ turns: 1, inputTokens });
  await slots.releaseTurn();
}

describe("usage batches", () => {
  it("confirmed by the tenant leave the record with its next write, not in a write of their own, and are not sent again", async () => {
    const tenant = uniqueTenant();
    await inSession(tenant, async (store) => {
      const tenants = lossyTenants();
      const slots = new SessionSlots(tenants.env, store);
      await oneTurn(slots, 10);
      const confirmed = store.record()!.usageBatch!;
      expect(tenants.sent).toEqual([confirmed.id]);
      await slots.holdTurn(); // the next turn's first write drops it
      expect(store.record()!.usageBatch ?? null).toBeNull();
      slots.record({ turns: 1, inputTokens: 5 });
      await slots.releaseTurn();
      expect(tenants.sent).toHaveLength(2);
      // An instance that restarted before that write sends it once more under its id: the tenant counts it once.
      const kept = store.record()!.usageBatch!;
      await new SessionSlots(tenants.env, store).tidy();
      expect(tenants.sent).toEqual([confirmed.id, kept.id, kept.id]);
    });
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 15 });
  });

  it("are counted once per id by the tenant object, also after it restarts, and not at all past the 7 days it remembers ids", async () => {
    const tenant = uniqueTenant();
    const batch = usageBatch({ turns: 1, inputTokens: 10 });
    await recordUsage(env, tenant, batch);
    await recordUsage(env, tenant, batch);
    expect(await today(tenant)).toEqual({ turns: 1, input_tokens: 10 });
    await abortAllDurableObjects();
    await recordUsage(env, tenant, batch);
    await recordUsage(env, tenant, usageBatch({ turns: 1, inputTokens: 5 }));
    // Older than the ids are kept: it must have been counted when it was new.
    await recordUsage(env, tenant, usageBatch({ turns: 9 }, Date.now() - BATCH_MEMORY_MS - 60_000));
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 15 });
  });

  it("are counted for the fields that hold counts: a NaN or negative one adds nothing and does not block the batches after it", async () => {
    const tenant = uniqueTenant();
    await recordUsage(env, tenant, usageBatch({ turns: 1, inputTokens: 3, outputTokens: Number.NaN, toolCalls: -2 }));
    await recordUsage(env, tenant, usageBatch({ turns: 1, inputTokens: 4 }));
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 7 });
  });

  for (const loss of ["reply", "request"] as const) {
    it(`are sent again under the same id when a release loses its ${loss}, and counted once`, async () => {
      const tenant = uniqueTenant();
      await inSession(tenant, async (store) => {
        const tenants = lossyTenants();
        const slots = new SessionSlots(tenants.env, store);
        tenants.loseNextRelease(loss);
        await oneTurn(slots, 10);
        const lost = store.record()!.usageBatch!;
        expect(lost.delta).toMatchObject({ turns: 1, inputTokens: 10 });
        // The next turn's slot call sends it again first; its own usage goes with its release.
        await oneTurn(slots, 5);
        expect(tenants.sent).toEqual([lost.id, lost.id, store.record()!.usageBatch!.id]);
        expect(store.record()!.pendingUsage ?? null).toBeNull();
        // Both are counted: the idle alarm sends nothing, and the record keeps neither.
        await slots.tidy();
        expect(tenants.sent).toHaveLength(3);
        expect(store.record()!.usageBatch ?? null).toBeNull();
      });
      expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 15 });
    });
  }

  it("that a failed call left ask for a later try (the object's alarm), which counts them; a call that succeeds asks for none", async () => {
    const tenant = uniqueTenant();
    await inSession(tenant, async (store) => {
      const tenants = lossyTenants();
      let retries = 0;
      const slots = new SessionSlots(tenants.env, store, () => (retries += 1));
      await oneTurn(slots, 3);
      expect(retries).toBe(0);
      tenants.loseNextRelease("request");
      await oneTurn(slots, 10);
      expect(retries).toBe(1);
      expect(store.record()!.usageBatch?.delta).toMatchObject({ turns: 1, inputTokens: 10 });
      // What the alarm does once the session is idle: no prompt comes, and the usage is counted anyway.
      await slots.tidy();
      expect(store.record()!.usageBatch ?? null).toBeNull();
      expect(retries).toBe(1);
    });
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 13 });
  });

  it("are sent again by a restarted object when the reply was lost, and left alone once confirmed", async () => {
    const tenant = uniqueTenant();
    await inSession(tenant, async (store) => {
      const tenants = lossyTenants();
      tenants.loseNextRelease("reply");
      await oneTurn(new SessionSlots(tenants.env, store), 10);
      // A new instance over the same storage, as after an eviction.
      const restarted = new SessionSlots(tenants.env, store);
      await restarted.tidy();
      expect(store.record()!.usageBatch ?? null).toBeNull();
      await new SessionSlots(tenants.env, store).tidy(); // nothing left to send
      expect(tenants.sent).toHaveLength(2);
    });
    expect(await today(tenant)).toEqual({ turns: 1, input_tokens: 10 });
  });
});
