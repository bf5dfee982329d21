/**
 * One Durable Object per tenant (named by the tenant): it leases turn and
 * sub-agent slots against the tenant's limits and aggregates its usage. Entry
 * points only; the work is in `TenantLedger`. Call it through
 * `src/tenant/tenant-slots.ts`, not directly.
 */
import { DurableObject } from "cloudflare:workers";
import { UsageIndex } from "../db/usage-index.js";
import type { Env } from "../env.js";
import type { LeaseRequest } from "../tenant/lease-book.js";
import { parseDefaultLimits, type LimitOverrides, type TenantLimits } from "../tenant/limits.js";
import { TenantLedger, type AcquireOutcome, type LimitsView } from "../tenant/tenant-ledger.js";
import { TenantStore } from "../tenant/tenant-store.js";
import type { UsageBatch } from "../tenant/usage.js";

export class TenantObject extends DurableObject<Env> {
  readonly #ledger: TenantLedger;
  #parsedDefaults: { raw: string | undefined; limits: TenantLimits } | undefined;
  /** When the alarm is set for, as far as this instance set or saw it. */
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const store = new TenantStore(ctx.storage.sql);
    const tenant = store.tenantName(ctx.id.name);
    if (!tenant) throw new Error("TenantObject must be addressed with idFromName(tenant)");
    this.#ledger = new TenantLedger({
      tenant,
      store,
      usage: new UsageIndex(env.DB),
      defaults: () => this.#defaults(),
      now: Date.now,
      newId: () => crypto.randomUUID(),
      flushWithin: (ms) => this.#alarmWithin(ms),
    });
  }

  /** `HERMES_TENANT_LIMITS` parsed once per value (it is read on every lease decision). */
  #defaults(): TenantLimits {
    const raw = this.env.HERMES_TENANT_LIMITS;
    const parsed = this.#parsedDefaults;
    if (parsed && parsed.raw === raw) return parsed.limits;
    const limits = parseDefaultLimits(raw);
    this.#parsedDefaults = { raw, limits };
    return limits;
  }

  async #alarmWithin(ms: number): Promise<void> {
    const at = Date.now() + ms;
    if (this.#alarmAt !== null && this.#alarmAt > Date.now() && this.#alarmAt <= at) return;
    const current = await this.ctx.storage.getAlarm();
    // One in the past is the alarm running now (a failed flush asking for its retry).
    if (current !== null && current > Date.now() && current <= at) {
      this.#alarmAt = current;
      return;
    }
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }

  acquire(request: LeaseRequest): AcquireOutcome {
    return this.#logged("acquire", () => this.#ledger.acquire(request));
  }

  renew(leaseId: string, ttlMs: number) {
    return this.#logged("renew", () => this.#ledger.renew(leaseId, ttlMs));
  }

  release(leaseId: string, usage?: UsageBatch): Promise<void> {
    return this.#logged("release", () => this.#ledger.release(leaseId, usage));
  }

  recordUsage(usage: UsageBatch): Promise<void> {
    return this.#logged("recordUsage", () => this.#ledger.record(usage));
  }

  /** Writes pending usage to D1 now (before usage is read); false when D1 failed (the alarm retries). */
  flushUsage(): Promise<boolean> {
    return this.#logged("flushUsage", () => this.#ledger.flush());
  }

  limits(): LimitsView {
    return this.#logged("limits", () => this.#ledger.view());
  }

  setLimits(overrides: LimitOverrides): LimitsView {
    return this.#logged("setLimits", () => this.#ledger.setOverrides(overrides));
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    await this.#logged("alarm", () => this.#ledger.flush());
  }

  #logged<T>(method: string, run: () => T): T {
    try {
      const result = run();
      if (result instanceof Promise) return result.catch((err) => this.#fail(method, err)) as T;
      return result;
    } catch (err) {
      return this.#fail(method, err);
    }
  }

  #fail(method: string, err: unknown): never {
    console.error("TenantObject entry point failed", { class: "TenantObject", method, tenant: this.ctx.id.name, err: String(err) });
    throw err;
  }
}
