/**
 * Usage goes from a session to its tenant object in batches with ids, so a
 * send whose reply was lost can be repeated without counting twice: on the
 * tenant object itself (across a restart of it), and from `SessionSlots` when
 * the reply to a slot's release never arrives.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { SessionSlots } from "../../src/tenant/session-slots.js";
import { flushUsage, recordUsage, type TenantEnv } from "../../src/tenant/tenant-slots.js";
import { utcDay } from "../../src/tenant/usage.js";
import { uniqueTenant } from "./admin-client.js";

async function today(tenant: string) {
  await flushUsage(env, tenant);
  return env.DB.prepare("SELECT turns, input_tokens FROM tenant_usage WHERE tenant = ? AND day = ?").bind(tenant, utcDay(Date.now())).first();
}

/** The real tenant objects, except that the reply to the next `release` is lost after the tenant has acted on it. */
function losingReplies(): { env: TenantEnv; loseNextRelease(): void } {
  let lose = false;
  const lossy = {
    idFromName: (name: string) => env.TENANT.idFromName(name),
    get: (id: DurableObjectId) => {
      const real = env.TENANT.get(id);
      return {
        acquire: (...args: Parameters<typeof real.acquire>) => real.acquire(...args),
        recordUsage: (...args: Parameters<typeof real.recordUsage>) => real.recordUsage(...args),
        release: async (...args: Parameters<typeof real.release>) => {
          await real.release(...args);
          if (lose) {
            lose = false;
            throw new Error("Network connection lost.");
          }
        },
      };
    },
  };
  return { env: { TENANT: lossy } as unknown as TenantEnv, loseNextRelease: () => (lose = true) };
}

describe("usage batches", () => {
  it("are counted once per id by the tenant object, also after it restarts", async () => {
    const tenant = uniqueTenant();
    const batch = { id: crypto.randomUUID(), delta: { turns: 1, inputTokens: 10 } };
    await recordUsage(env, tenant, batch);
    await recordUsage(env, tenant, batch);
    expect(await today(tenant)).toEqual({ turns: 1, input_tokens: 10 });
    await abortAllDurableObjects();
    await recordUsage(env, tenant, batch);
    await recordUsage(env, tenant, { id: crypto.randomUUID(), delta: { turns: 1, inputTokens: 5 } });
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 15 });
  });

  it("are sent again under the same id when a release's reply is lost, and counted once", async () => {
    const tenant = uniqueTenant();
    const stub = env.SESSION.get(env.SESSION.idFromName(`usage-batches-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_instance, ctx) => {
      const store = new SessionStore(ctx.storage.sql);
      store.migrate();
      store.saveRecord({ sessionId: "s-usage", tenant, interruptedPrompt: null } as SessionRecord);
      const tenants = losingReplies();
      const slots = new SessionSlots(tenants.env, store);

      await slots.holdTurn();
      slots.record({ turns: 1, inputTokens: 10 });
      tenants.loseNextRelease();
      await slots.releaseTurn(); // the tenant counted it; the session did not hear so

      // The next turn: its slot call sends the unacknowledged usage again first, then its own goes with the release.
      await slots.holdTurn();
      slots.record({ turns: 1, inputTokens: 5 });
      await slots.releaseTurn();
      expect(store.record()!.pendingUsage ?? null).toBeNull();
    });
    expect(await today(tenant)).toEqual({ turns: 2, input_tokens: 15 });
  });
});
