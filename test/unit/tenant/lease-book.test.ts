import { describe, expect, it } from "vitest";
import { decideLease, describeRefusal, type Lease, type TenantSnapshot } from "../../../src/tenant/lease-book.js";

const NOW = 1_000_000;
let n = 0;
const newId = () => `lease-${++n}`;

function snapshot(partial: Partial<TenantSnapshot> = {}): TenantSnapshot {
  return { leases: [], limits: {}, tokensToday: 0, secondsToReset: 3_600, ...partial };
}

function lease(holder: string, kind: Lease["kind"] = "turn", expiresAt = NOW + 10_000): Lease {
  return { id: `id-${holder}`, kind, holder, expiresAt };
}

describe("decideLease", () => {
  it("grants a new lease with the requested time to live when under the limit", () => {
    const decision = decideLease(snapshot({ limits: { maxConcurrentTurns: 2 }, leases: [lease("a")] }), { kind: "turn", holder: "b", ttlMs: 5_000 }, NOW, newId);
    expect(decision).toEqual({
      granted: true,
      renewed: false,
      keep: false,
      tokensLeft: null,
      lease: { id: expect.stringMatching(/^lease-/), kind: "turn", holder: "b", expiresAt: NOW + 5_000 },
    });
  });

  it("refuses at the limit with limit, used and max", () => {
    const decision = decideLease(snapshot({ limits: { maxConcurrentTurns: 2 }, leases: [lease("a"), lease("b")] }), { kind: "turn", holder: "c", ttlMs: 5_000 }, NOW, newId);
    expect(decision).toEqual({ granted: false, refusal: { limit: "maxConcurrentTurns", used: 2, max: 2 } });
  });

  it("renews the holder's own lease instead of taking a second slot, even at the limit", () => {
    const own = lease("a", "turn", NOW + 1_000);
    const decision = decideLease(snapshot({ limits: { maxConcurrentTurns: 1 }, leases: [own] }), { kind: "turn", holder: "a", ttlMs: 5_000 }, NOW, newId);
    expect(decision).toEqual({ granted: true, renewed: true, keep: false, tokensLeft: null, lease: { ...own, expiresAt: NOW + 5_000 } });
  });

  it("does not count expired leases", () => {
    const stale = lease("gone", "turn", NOW);
    const decision = decideLease(snapshot({ limits: { maxConcurrentTurns: 1 }, leases: [stale] }), { kind: "turn", holder: "b", ttlMs: 5_000 }, NOW, newId);
    expect(decision.granted).toBe(true);
  });

  it("counts turns and sub-agents separately", () => {
    const state = snapshot({ limits: { maxConcurrentTurns: 1, maxConcurrentSubagents: 1 }, leases: [lease("p", "turn"), lease("c1", "subagent")] });
    expect(decideLease(state, { kind: "subagent", holder: "c2", ttlMs: 1 }, NOW, newId)).toMatchObject({ granted: false, refusal: { limit: "maxConcurrentSubagents" } });
    expect(decideLease(state, { kind: "turn", holder: "q", ttlMs: 1 }, NOW, newId)).toMatchObject({ granted: false, refusal: { limit: "maxConcurrentTurns" } });
  });

  it("refuses any start once today's tokens reach dailyTokens, a renewing holder included, with the time to reset", () => {
    const state = snapshot({ limits: { dailyTokens: 100 }, tokensToday: 100, secondsToReset: 42, leases: [lease("a")] });
    for (const holder of ["a", "b"]) {
      expect(decideLease(state, { kind: "turn", holder, ttlMs: 1 }, NOW, newId)).toEqual({
        granted: false,
        refusal: { limit: "dailyTokens", used: 100, max: 100, retryAfterSeconds: 42 },
      });
    }
    expect(decideLease({ ...state, tokensToday: 99 }, { kind: "turn", holder: "b", ttlMs: 1 }, NOW, newId).granted).toBe(true);
  });

  it("lets a turn slot be kept after its queue drains only while the tenant is at most half full, and never a sub-agent's", () => {
    const turn = (leases: Lease[], max?: number) =>
      decideLease(snapshot({ limits: max === undefined ? {} : { maxConcurrentTurns: max }, leases }), { kind: "turn", holder: "me", ttlMs: 1 }, NOW, newId);
    expect(turn([], 1)).toMatchObject({ granted: true, keep: false });
    expect(turn([], 2)).toMatchObject({ granted: true, keep: true });
    expect(turn([lease("a")], 4)).toMatchObject({ granted: true, keep: true });
    expect(turn([lease("a"), lease("b")], 4)).toMatchObject({ granted: true, keep: false });
    // Asking again for its own slot counts it once.
    expect(turn([lease("a"), lease("me")], 4)).toMatchObject({ granted: true, renewed: true, keep: true });
    expect(turn(Array.from({ length: 50 }, (_, i) => lease(`s${i}`)))).toMatchObject({ granted: true, keep: true });
    const subagent = decideLease(snapshot(), { kind: "subagent", holder: "c", ttlMs: 1 }, NOW, newId);
    expect(subagent).toMatchObject({ granted: true, keep: false });
  });

  it("says how much of the day's token budget is left with a grant, or null without a budget", () => {
    const ask = (limits: TenantSnapshot["limits"], tokensToday: number) => decideLease(snapshot({ limits, tokensToday }), { kind: "turn", holder: "x", ttlMs: 1 }, NOW, newId);
    expect(ask({ dailyTokens: 1_000 }, 250)).toMatchObject({ granted: true, tokensLeft: 750 });
    expect(ask({}, 250)).toMatchObject({ granted: true, tokensLeft: null });
  });

  it("treats a missing limit as no limit and 0 as none allowed", () => {
    const many = Array.from({ length: 50 }, (_, i) => lease(`s${i}`));
    expect(decideLease(snapshot({ leases: many }), { kind: "turn", holder: "x", ttlMs: 1 }, NOW, newId).granted).toBe(true);
    expect(decideLease(snapshot({ limits: { maxConcurrentSubagents: 0 } }), { kind: "subagent", holder: "x", ttlMs: 1 }, NOW, newId).granted).toBe(false);
  });
});

describe("describeRefusal", () => {
  it("says which limit, how much is used and when to retry", () => {
    expect(describeRefusal({ limit: "maxConcurrentSubagents", used: 6, max: 6 })).toBe("maxConcurrentSubagents (6 of 6 sub-agents running)");
    expect(describeRefusal({ limit: "dailyTokens", used: 2_000_100, max: 2_000_000, retryAfterSeconds: 30 })).toBe(
      "dailyTokens (2000100 of 2000000 tokens used today (UTC); retry in 30 s)",
    );
  });
});
