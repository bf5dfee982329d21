/**
 * Decides whether a turn or a sub-agent may start, from the tenant's live
 * leases, its limits and the tokens it used today. Pure: no storage, no clock.
 *
 * A lease is held by one session for one kind of slot. Asking again for a
 * kind it already holds renews that lease instead of taking a second slot, so
 * a prompt queued behind a running turn of the same session never counts
 * twice. Leases expire: a holder that was evicted without releasing stops
 * counting once its `expiresAt` has passed.
 * @module
 */
import type { LimitName, TenantLimits } from "./limits.js";

export type LeaseKind = "turn" | "subagent";

export interface Lease {
  id: string;
  kind: LeaseKind;
  /** The session holding the slot (for a sub-agent, the sub-agent's own session). */
  holder: string;
  expiresAt: number;
}

export interface LimitRefusal {
  limit: LimitName;
  used: number;
  max: number;
  /** Only where a wait is known: the daily token budget resets at 00:00 UTC. */
  retryAfterSeconds?: number;
}

export type LeaseDecision =
  | { granted: true; lease: Lease; renewed: boolean }
  | { granted: false; refusal: LimitRefusal };

export const LIMIT_OF_KIND: Record<LeaseKind, LimitName> = { turn: "maxConcurrentTurns", subagent: "maxConcurrentSubagents" };

export interface LeaseRequest {
  kind: LeaseKind;
  holder: string;
  ttlMs: number;
}

export interface TenantSnapshot {
  leases: readonly Lease[];
  limits: TenantLimits;
  tokensToday: number;
  /** Seconds until the daily budget resets, reported with a `dailyTokens` refusal. */
  secondsToReset: number;
}

export function liveLeases(leases: readonly Lease[], now: number): Lease[] {
  return leases.filter((l) => l.expiresAt > now);
}

export function decideLease(state: TenantSnapshot, request: LeaseRequest, now: number, newId: () => string): LeaseDecision {
  const { dailyTokens } = state.limits;
  // The token budget is checked for every start, a renewing holder included: a queued prompt is a new turn.
  if (dailyTokens !== undefined && state.tokensToday >= dailyTokens) {
    return {
      granted: false,
      refusal: { limit: "dailyTokens", used: state.tokensToday, max: dailyTokens, retryAfterSeconds: state.secondsToReset },
    };
  }
  const live = liveLeases(state.leases, now).filter((l) => l.kind === request.kind);
  const expiresAt = now + request.ttlMs;
  const held = live.find((l) => l.holder === request.holder);
  if (held) return { granted: true, lease: { ...held, expiresAt: Math.max(held.expiresAt, expiresAt) }, renewed: true };
  const limit = LIMIT_OF_KIND[request.kind];
  const max = state.limits[limit];
  if (max !== undefined && live.length >= max) return { granted: false, refusal: { limit, used: live.length, max } };
  return { granted: true, lease: { id: newId(), kind: request.kind, holder: request.holder, expiresAt }, renewed: false };
}

const UNIT: Record<LimitName, string> = {
  maxConcurrentTurns: "turns running",
  maxConcurrentSubagents: "sub-agents running",
  dailyTokens: "tokens used today (UTC)",
};

/** The human part of the -32003 message, e.g. "maxConcurrentTurns (4 of 4 turns running)". */
export function describeRefusal(refusal: LimitRefusal): string {
  const wait = refusal.retryAfterSeconds === undefined ? "" : `; retry in ${refusal.retryAfterSeconds} s`;
  return `${refusal.limit} (${refusal.used} of ${refusal.max} ${UNIT[refusal.limit]}${wait})`;
}
