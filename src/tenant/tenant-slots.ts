/**
 * What session code calls to respect its tenant's limits. A turn or a
 * sub-agent holds a lease from the tenant object while it runs; the lease
 * expires unless renewed, so a session evicted mid-turn frees its slot.
 *
 * - `acquireTurn` before a turn starts: a lease, or a `RequestError` -32003
 *   to answer the `session/prompt` with. The same session asking again while
 *   it holds a turn lease gets that lease back: a queued prompt is not a second slot.
 * - `acquireSubagent` before a sub-agent starts: waits (polling) while the
 *   tenant is at `maxConcurrentSubagents`, so the sub-agent waits in the pool
 *   instead of failing; throws -32003 only for the daily token budget.
 * - `renewLease` from the heartbeat while it runs, `releaseLease` when it ends
 *   (completed, failed, cancelled or interrupted).
 * - `recordUsage` once per finished turn or sub-agent: one D1 write.
 * @module
 */
import type { Env } from "../env.js";
import type { LeaseKind, LimitRefusal } from "./lease-book.js";
import { LEASE_TTL_MS } from "./tenant-ledger.js";
import { tenantLimitError } from "./tenant-limit-error.js";
import type { UsageDelta } from "./usage.js";

export type TenantEnv = Pick<Env, "TENANT">;

export interface TenantLease {
  id: string;
  tenant: string;
  kind: LeaseKind;
  holder: string;
  expiresAt: number;
}

/** How often a waiting sub-agent asks again for a slot. */
export const SUBAGENT_POLL_MS = 1_000;

function tenantStub(env: TenantEnv, tenant: string) {
  return env.TENANT.get(env.TENANT.idFromName(tenant));
}

async function tryAcquire(env: TenantEnv, tenant: string, kind: LeaseKind, holder: string, ttlMs: number): Promise<TenantLease | LimitRefusal> {
  const outcome = await tenantStub(env, tenant).acquire({ kind, holder, ttlMs });
  return outcome.ok ? { ...outcome.lease, tenant } : outcome.refusal;
}

function isLease(value: TenantLease | LimitRefusal): value is TenantLease {
  return "id" in value;
}

/** @throws {RequestError} -32003 "tenant limit reached: …" when the tenant is at a limit. */
export async function acquireTurn(env: TenantEnv, tenant: string, sessionId: string, ttlMs = LEASE_TTL_MS): Promise<TenantLease> {
  const result = await tryAcquire(env, tenant, "turn", sessionId, ttlMs);
  if (isLease(result)) return result;
  throw tenantLimitError(result);
}

/**
 * Resolves once the tenant has a free sub-agent slot.
 * @throws {RequestError} -32003 when the daily token budget is spent (waiting would mean until midnight UTC).
 * @throws the signal's reason when `signal` aborts while waiting.
 */
export async function acquireSubagent(
  env: TenantEnv,
  tenant: string,
  subagentSessionId: string,
  options: { signal?: AbortSignal; ttlMs?: number; pollMs?: number } = {},
): Promise<TenantLease> {
  for (;;) {
    options.signal?.throwIfAborted();
    const result = await tryAcquire(env, tenant, "subagent", subagentSessionId, options.ttlMs ?? LEASE_TTL_MS);
    if (isLease(result)) return result;
    if (result.limit === "dailyTokens") throw tenantLimitError(result);
    await sleep(options.pollMs ?? SUBAGENT_POLL_MS, options.signal);
  }
}

/** Extends the lease; false when it already expired (acquire again to keep running within the limits). */
export async function renewLease(env: TenantEnv, lease: TenantLease, ttlMs = LEASE_TTL_MS): Promise<boolean> {
  const renewed = await tenantStub(env, lease.tenant).renew(lease.id, ttlMs);
  if (renewed) lease.expiresAt = renewed.expiresAt;
  return renewed !== null;
}

export async function releaseLease(env: TenantEnv, lease: TenantLease): Promise<void> {
  await tenantStub(env, lease.tenant).release(lease.id);
}

/** Adds one finished turn's (`turns: 1`) or sub-agent's (`subagents: 1`) counts to today's usage. */
export async function recordUsage(env: TenantEnv, tenant: string, usage: UsageDelta): Promise<void> {
  await tenantStub(env, tenant).recordUsage(usage);
}

export function tenantLimits(env: TenantEnv, tenant: string) {
  return tenantStub(env, tenant).limits();
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
