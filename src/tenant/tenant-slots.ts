/**
 * What session code calls to respect its tenant's limits. A turn or a
 * sub-agent holds a lease from the tenant object while it runs; the lease
 * expires unless renewed, so a session evicted mid-turn frees its slot.
 *
 * Prompt runner (editor prompts):
 * - Right before each turn starts, the first and each queued one:
 *   `lease = await acquireTurn(env, tenant, sessionId)`. It is idempotent per
 *   session, so a prompt queued behind a running turn of the same session
 *   never takes a second slot (the daily token budget is still checked).
 *   A `RequestError` -32003 is that `session/prompt`'s answer
 *   (`err.toErrorResponse()`); the turn does not run.
 * - While it runs: `renewLease(env, lease)` from the session's 30 s
 *   heartbeat; `false` means it expired, so acquire again.
 * - As a turn spends (`{ turns: 1 }` when it starts, `{ modelCalls: 1,
 *   inputTokens, outputTokens }` as each model call ends, `{ toolCalls: 1 }` as
 *   each tool call starts), the counts are added up in the session's record, so
 *   a turn a restart cuts off still counts, and go with its next call to the tenant.
 * - When the runner goes idle (queue drained), or on close/delete:
 *   `releaseLease(env, lease, usage)`. Keep the lease in storage so a restarted
 *   object can release it; if it cannot, the lease expires on its own. A grant
 *   that says `keep` may be held a moment longer first, so the session's next
 *   prompt needs no tenant call (`SessionSlots`).
 *
 * Sub-agent pool (a sub-agent's task does not take a turn slot):
 * - Before starting each sub-agent, inside the pool's own slot:
 *   `lease = await acquireSubagent(env, tenant, subagentSessionId, { signal })`
 *   with the parent turn's abort signal. It waits while the tenant is at
 *   `maxConcurrentSubagents`; it throws -32003 only for the daily token
 *   budget, which fails that sub-agent's task with the message.
 * - Renew as above while it runs; when it ends, `releaseLease` and
 *   `recordUsage(env, tenant, usageBatch({ subagents: 1, modelCalls, inputTokens, outputTokens, toolCalls }))`.
 * @module
 */
import type { Env } from "../env.js";
import type { LeaseKind, LimitRefusal } from "./lease-book.js";
import { LEASE_TTL_MS, type AcquireOutcome } from "./tenant-ledger.js";
import { tenantLimitError } from "./tenant-limit-error.js";
import type { UsageBatch } from "./usage.js";

/** `stubs`, when given, keeps the tenant's stub between calls (a session's slots call it twice a prompt). */
export type TenantEnv = Pick<Env, "TENANT"> & { readonly stubs?: TenantStubs };

type TenantStub = ReturnType<Env["TENANT"]["get"]>;

/**
 * One stub per tenant for one object instance: each new one is an
 * `idFromName` (a hash) and a `get`. A call that throws drops it, since a stub
 * may stay broken after an exception; the next call makes a new one.
 */
export class TenantStubs {
  readonly #stubs = new Map<string, TenantStub>();

  constructor(private readonly namespace: Env["TENANT"]) {}

  async call<T>(tenant: string, use: (stub: TenantStub) => PromiseLike<T>): Promise<T> {
    let stub = this.#stubs.get(tenant);
    if (!stub) {
      stub = this.namespace.get(this.namespace.idFromName(tenant));
      this.#stubs.set(tenant, stub);
    }
    try {
      return await use(stub);
    } catch (err) {
      if (this.#stubs.get(tenant) === stub) this.#stubs.delete(tenant);
      throw err;
    }
  }
}

export interface TenantLease {
  id: string;
  tenant: string;
  kind: LeaseKind;
  holder: string;
  expiresAt: number;
}

/** How often a waiting sub-agent asks again for a slot. */
export const SUBAGENT_POLL_MS = 1_000;

async function onTenant<T>(env: TenantEnv, tenant: string, use: (stub: TenantStub) => PromiseLike<T>): Promise<T> {
  if (env.stubs) return env.stubs.call(tenant, use);
  return await use(env.TENANT.get(env.TENANT.idFromName(tenant)));
}

/** A turn slot as granted: may the session keep it a moment after its queue drains, and the day's tokens left then (null: no budget). */
export interface TurnGrant {
  lease: TenantLease;
  keep: boolean;
  tokensLeft: number | null;
}

async function tryAcquire(env: TenantEnv, tenant: string, kind: LeaseKind, holder: string, ttlMs: number): Promise<TurnGrant | LimitRefusal> {
  const outcome = await onTenant<AcquireOutcome>(env, tenant, (stub) => stub.acquire({ kind, holder, ttlMs }));
  if (!outcome.ok) return outcome.refusal;
  // A tenant object still on older code (a deploy rolling out) answers without the two: nothing is kept or used again unasked.
  const { keep, tokensLeft } = outcome as Partial<typeof outcome>;
  const lease = { ...outcome.lease, tenant };
  return keep === undefined || tokensLeft === undefined ? { lease, keep: false, tokensLeft: 0 } : { lease, keep, tokensLeft };
}

function isGrant(value: TurnGrant | LimitRefusal): value is TurnGrant {
  return "lease" in value;
}

/** @throws {RequestError} -32003 "tenant limit reached: …" when the tenant is at a limit. */
export async function acquireTurn(env: TenantEnv, tenant: string, sessionId: string, ttlMs = LEASE_TTL_MS): Promise<TurnGrant> {
  const result = await tryAcquire(env, tenant, "turn", sessionId, ttlMs);
  if (isGrant(result)) return result;
  throw tenantLimitError(result);
}

/**
 * Resolves once the tenant has a free sub-agent slot; `onWait` hears once that it has to wait.
 * @throws {RequestError} -32003 when the daily token budget is spent (waiting would mean until midnight UTC)
 *   or the tenant allows no sub-agents at all.
 * @throws the signal's reason when `signal` aborts while waiting.
 */
export async function acquireSubagent(
  env: TenantEnv,
  tenant: string,
  subagentSessionId: string,
  options: { signal?: AbortSignal; ttlMs?: number; pollMs?: number; onWait?: (refusal: LimitRefusal) => void } = {},
): Promise<TenantLease> {
  for (let first = true; ; first = false) {
    options.signal?.throwIfAborted();
    const result = await tryAcquire(env, tenant, "subagent", subagentSessionId, options.ttlMs ?? LEASE_TTL_MS);
    if (isGrant(result)) return result.lease;
    // No wait ends a spent daily budget before midnight UTC, or a limit of 0 at all.
    if (result.limit === "dailyTokens" || result.max === 0) throw tenantLimitError(result);
    // The tenant's limit, not the session's own, holds this sub-agent: whoever shows the task says so.
    if (first) options.onWait?.(result);
    await sleep(options.pollMs ?? SUBAGENT_POLL_MS, options.signal);
  }
}

/** Extends the lease; false when it already expired (acquire again to keep running within the limits). */
export async function renewLease(env: TenantEnv, lease: TenantLease, ttlMs = LEASE_TTL_MS): Promise<boolean> {
  const renewed = await onTenant(env, lease.tenant, (stub) => stub.renew(lease.id, ttlMs));
  if (renewed) lease.expiresAt = renewed.expiresAt;
  return renewed !== null;
}

/** One attempt to take a lease of the same kind again (after it expired or the tenant restarted); null when the tenant is full. */
export async function retakeLease(env: TenantEnv, lease: TenantLease, ttlMs = LEASE_TTL_MS): Promise<TenantLease | null> {
  const result = await tryAcquire(env, lease.tenant, lease.kind, lease.holder, ttlMs);
  return isGrant(result) ? result.lease : null;
}

/** Gives the lease back; `usage`, when given, is added to today's in the same call (once per batch id). */
export async function releaseLease(env: TenantEnv, lease: TenantLease, usage?: UsageBatch): Promise<void> {
  await onTenant(env, lease.tenant, (stub) => stub.release(lease.id, usage));
}

/**
 * Adds finished turns' (`turns`) or sub-agents' (`subagents`) counts to today's
 * usage; a batch is counted once however often it is sent.
 */
export async function recordUsage(env: TenantEnv, tenant: string, usage: UsageBatch): Promise<void> {
  await onTenant(env, tenant, (stub) => stub.recordUsage(usage));
}

/** Writes the tenant's pending usage to D1, so a read right after sees every finished turn. */
export async function flushUsage(env: TenantEnv, tenant: string): Promise<void> {
  await onTenant(env, tenant, (stub) => stub.flushUsage());
}

export function tenantLimits(env: TenantEnv, tenant: string) {
  return onTenant(env, tenant, (stub) => stub.limits());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
