/**
 * What the tenant object does, written without the object: lease turn and
 * sub-agent slots against the limits, count usage per UTC day, and flush the
 * day totals to D1: from the object's alarm, at most `FLUSH_DELAY_MS` after a
 * turn's usage arrives (so a busy tenant writes D1 once per 30 s, not once
 * per turn), and on demand before usage is read. The object's RPC methods and
 * alarm are one call each into this.
 * @module
 */
import type { UsageIndex } from "../db/usage-index.js";
import { decideLease, liveLeases, type Lease, type LeaseRequest, type LimitRefusal } from "./lease-book.js";
import { effectiveLimits, type LimitOverrides, type TenantLimits } from "./limits.js";
import type { TenantStore } from "./tenant-store.js";
import { addUsage, DAY_MS, emptyUsage, secondsUntilNextUtcDay, tokensOf, utcDay, type UsageBatch } from "./usage.js";

/** A lease lives this long unless renewed; holders renew from their 30 s heartbeat. */
export const LEASE_TTL_MS = 90_000;
export const MIN_LEASE_TTL_MS = 1_000;
export const MAX_LEASE_TTL_MS = 15 * 60_000;
/**
 * Usage recorded now is in D1 at most this much later, or as soon as usage is
 * read: a read asks for a flush first, so this only bounds how far behind D1
 * is for a read that cannot reach the object. Each flush is a D1 write (and an
 * alarm), which a busy tenant would otherwise make every second.
 */
export const FLUSH_DELAY_MS = 30_000;
/** After a failed D1 flush, the alarm tries again this much later. */
export const FLUSH_RETRY_MS = 10_000;
/**
 * How long a usage batch's id is remembered. A session resends an unanswered
 * batch with its next call; one older than this counts as counted already.
 */
export const BATCH_MEMORY_MS = 7 * DAY_MS;

/** A grant says whether a turn slot may be kept a moment after its queue drains, and the day's tokens left (`decideLease`). */
export type AcquireOutcome = { ok: true; lease: Lease; keep: boolean; tokensLeft: number | null } | { ok: false; refusal: LimitRefusal };

export interface LimitsView {
  tenant: string;
  /** What applies now: defaults with this tenant's overrides; an absent name is unlimited. */
  limits: TenantLimits;
  overrides: LimitOverrides;
  defaults: TenantLimits;
  active: { turns: number; subagents: number };
}

export interface LedgerDeps {
  tenant: string;
  store: TenantStore;
  usage: UsageIndex;
  /** Read on every decision, so a changed `HERMES_TENANT_LIMITS` applies at once. Throws when it is invalid. */
  defaults: () => TenantLimits;
  now: () => number;
  newId: () => string;
  /** Asks for `flush` to run within `ms` (the object's alarm); an earlier request stands. */
  flushWithin: (ms: number) => Promise<void>;
}

export class TenantLedger {
  readonly #d: LedgerDeps;
  /** The last flush started; the next one waits for it. */
  #flushing: Promise<unknown> = Promise.resolve();

  constructor(deps: LedgerDeps) {
    this.#d = deps;
  }

  acquire(request: LeaseRequest): AcquireOutcome {
    const now = this.#d.now();
    const ttlMs = clampTtl(request.ttlMs);
    const decision = decideLease(
      {
        leases: this.#d.store.leases(now),
        limits: this.#limits(),
        tokensToday: tokensOf(this.#d.store.day(utcDay(now))),
        secondsToReset: secondsUntilNextUtcDay(now),
      },
      { ...request, ttlMs },
      now,
      this.#d.newId,
    );
    if (!decision.granted) return { ok: false, refusal: decision.refusal };
    this.#d.store.putLease(decision.lease);
    return { ok: true, lease: decision.lease, keep: decision.keep, tokensLeft: decision.tokensLeft };
  }

  /** Extends a live lease; null when it has expired (the holder must acquire again). */
  renew(leaseId: string, ttlMs: number): Lease | null {
    const now = this.#d.now();
    return this.#d.store.extendLease(leaseId, now + clampTtl(ttlMs), now);
  }

  /** Gives a lease back, with the usage of the turns it covered when there is any. */
  async release(leaseId: string, usage?: UsageBatch): Promise<void> {
    this.#d.store.deleteLease(leaseId);
    if (usage) await this.record(usage);
  }

  /**
   * Adds turns' or sub-agents' usage to today; D1 gets it from the next flush.
   * A batch seen before adds nothing: the reply to its first send was lost.
   */
  async record(batch: UsageBatch): Promise<void> {
    const now = this.#d.now();
    if (batch.at < now - BATCH_MEMORY_MS || !this.#d.store.rememberBatch(batch.id, now)) return;
    this.#d.store.addToDay(utcDay(now), addUsage(emptyUsage(), batch.delta), batch.user);
    await this.#d.flushWithin(FLUSH_DELAY_MS);
  }

  /**
   * Writes every day D1 does not have yet in one batch; on failure, retries
   * from the alarm. One flush at a time: each writes absolute day totals, and
   * two in flight at once (the alarm's and a usage read's) could land in D1
   * older last while both count as flushed.
   */
  flush(): Promise<boolean> {
    const flushed = this.#flushing.then(() => this.#flushOnce());
    this.#flushing = flushed.catch(() => false);
    return flushed;
  }

  async #flushOnce(): Promise<boolean> {
    const pending = this.#d.store.pendingDays();
    const users = this.#d.store.pendingUserDays();
    if (pending.length === 0 && users.length === 0) return true;
    const now = this.#d.now();
    try {
      await this.#d.usage.write(this.#d.tenant, pending.map((p) => p.day), now, users.map((p) => ({ user: p.user!, day: p.day })));
    } catch (err) {
      console.error("tenant usage flush failed; retrying", { tenant: this.#d.tenant, err: String(err) });
      await this.#d.flushWithin(FLUSH_RETRY_MS);
      return false;
    }
    this.#d.store.markFlushed([...pending, ...users]);
    this.#d.store.pruneDays(utcDay(now - DAY_MS));
    this.#d.store.pruneBatches(now - BATCH_MEMORY_MS);
    return true;
  }

  view(): LimitsView {
    const overrides = this.#d.store.overrides();
    const defaults = this.#d.defaults();
    const live = liveLeases(this.#d.store.leases(this.#d.now()), this.#d.now());
    return {
      tenant: this.#d.tenant,
      limits: effectiveLimits(defaults, overrides),
      overrides,
      defaults,
      active: { turns: live.filter((l) => l.kind === "turn").length, subagents: live.filter((l) => l.kind === "subagent").length },
    };
  }

  setOverrides(overrides: LimitOverrides): LimitsView {
    this.#d.store.setOverrides(overrides);
    return this.view();
  }

  #limits(): TenantLimits {
    return effectiveLimits(this.#d.defaults(), this.#d.store.overrides());
  }
}

function clampTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs)) return LEASE_TTL_MS;
  return Math.min(MAX_LEASE_TTL_MS, Math.max(MIN_LEASE_TTL_MS, Math.round(ttlMs)));
}
