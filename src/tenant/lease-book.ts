/**
 * Decides whether a turn or a sub-agent may start, from the tenant's live
 * leases, its limits and the tokens it used today. Pure: no storage, no clock.
 *
 * A lease is held by one session for one kind of slot. Asking again for a
 * kind it already holds renews that lease instead of taking a second slot, so
 * a prompt queued behind a running turn of the same session never counts
 * twice. Leases expire: a holder that was evicted without releasing stops
 * counting once its `expiresAt` has passed.
 *
 * A granted turn slot says whether its session may keep it for a moment after
 * its queue drains (`keep`): only while the tenant is at most half full, so a
 * kept slot never stands in the way of another session's prompt unless the
 * tenant went from half full to full within that moment. With it comes the
 * day's token budget left (`tokensLeft`), which the session checks on its own
 * while it uses a kept slot again.
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

export type LeaseDecision = { granted: true; lease: Lease; renewed: boolean; keep: boolean; tokensLeft: number | null } | { granted: false; refusal: LimitRefusal };

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
  const limit = LIMIT_OF_KIND[request.kind];
  const max = state.limits[limit];
  const tokensLeft = dailyTokens === undefined ? null : dailyTokens - state.tokensToday;
  // Half full or less once this slot counts: a kept slot leaves room for as many again.
  const keepWith = (holding: number) => request.kind === "turn" && (max === undefined || holding * 2 <= max);
  const held = live.find((l) => l.holder === request.holder);
  if (held) {
    return { granted: true, lease: { ...held, expiresAt: Math.max(held.expiresAt, expiresAt) }, renewed: true, keep: keepWith(live.length), tokensLeft };
  }
  if (max !== undefined && live.length >= max) return { granted: false, refusal: { limit, used: live.length, max } };
  const lease = { id: newId(), kind: request.kind, holder: request.holder, expiresAt };
  return { granted: true, lease, renewed: false, keep: keepWith(live.length + 1), tokensLeft };
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
