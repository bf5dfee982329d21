import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { DEFAULT_MAX_SPAWN_DEPTH, MAX_CONCURRENT_CHILDREN_LIMIT } from "../../../src/config.js";
import { effectiveLimits, parseDefaultLimits, subagentDemand, TenantLimitsConfigError } from "../../../src/tenant/limits.js";
import { addUsage, emptyUsage, secondsUntilNextUtcDay, totalOf, utcDay, zDay, zDayRange } from "../../../src/tenant/usage.js";

describe("HERMES_TENANT_LIMITS", () => {
  it("parses the documented JSON and treats unset or blank as no limits", () => {
    expect(parseDefaultLimits('{"maxConcurrentTurns": 4, "maxConcurrentSubagents": 6, "dailyTokens": 2000000}')).toEqual({
      maxConcurrentTurns: 4,
      maxConcurrentSubagents: 6,
      dailyTokens: 2_000_000,
    });
    expect(parseDefaultLimits(undefined)).toEqual({});
    expect(parseDefaultLimits("  ")).toEqual({});
    expect(parseDefaultLimits('{"dailyTokens": 5}')).toEqual({ dailyTokens: 5 });
  });

  it("refuses invalid JSON, unknown keys and bad numbers with a message naming the problem", () => {
    expect(() => parseDefaultLimits("{maxConcurrentTurns: 4}")).toThrow(new TenantLimitsConfigError("HERMES_TENANT_LIMITS is not valid JSON"));
    expect(() => parseDefaultLimits('{"maxTurns": 4}')).toThrow(/HERMES_TENANT_LIMITS is invalid: .*maxTurns/);
    expect(() => parseDefaultLimits('{"dailyTokens": -1}')).toThrow(/dailyTokens/);
    expect(() => parseDefaultLimits('{"maxConcurrentTurns": "4"}')).toThrow(/maxConcurrentTurns/);
  });

  it("merges overrides over defaults: a number sets, null lifts, absent keeps", () => {
    const defaults = { maxConcurrentTurns: 4, maxConcurrentSubagents: 6, dailyTokens: 100 };
    expect(effectiveLimits(defaults, { maxConcurrentTurns: 1, dailyTokens: null })).toEqual({ maxConcurrentTurns: 1, maxConcurrentSubagents: 6 });
    expect(effectiveLimits({}, { maxConcurrentSubagents: 2 })).toEqual({ maxConcurrentSubagents: 2 });
    expect(effectiveLimits(defaults, {})).toEqual(defaults);
  });
});

describe("the tenant's sub-agent limit against the sessions' own caps", () => {
  it("counts what the tenant's sessions may run at once: turns times children, per level of depth", () => {
    expect(subagentDemand(4, 16, 1)).toBe(64);
    expect(subagentDemand(4, 10, 1)).toBe(40);
    expect(subagentDemand(2, 3, 2)).toBe(2 * 3 + 2 * 9);
    expect(subagentDemand(4, 16, 0)).toBe(0);
  });

  it("ships a default that never holds a session below its HERMES_MAX_CONCURRENT_CHILDREN, even at the highest setting", () => {
    const toml = readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8");
    const shipped = parseDefaultLimits(/^HERMES_TENANT_LIMITS = '(.*)'$/m.exec(toml)?.[1]);
    expect(shipped.maxConcurrentTurns).toBeDefined();
    const demand = subagentDemand(shipped.maxConcurrentTurns!, MAX_CONCURRENT_CHILDREN_LIMIT, DEFAULT_MAX_SPAWN_DEPTH);
    expect(shipped.maxConcurrentSubagents ?? Infinity).toBeGreaterThanOrEqual(demand);
  });
});

describe("usage days", () => {
  it("names UTC days and the seconds left in one", () => {
    expect(utcDay(Date.parse("2026-03-01T23:59:59.999Z"))).toBe("2026-03-01");
    expect(utcDay(Date.parse("2026-03-02T00:00:00Z"))).toBe("2026-03-02");
    expect(secondsUntilNextUtcDay(Date.parse("2026-03-01T23:59:00Z"))).toBe(60);
    expect(secondsUntilNextUtcDay(Date.parse("2026-03-01T00:00:00Z"))).toBe(86_400);
  });

  it("adds deltas and totals days", () => {
    const day = addUsage(emptyUsage(), { turns: 1, inputTokens: 10 });
    expect(addUsage(day, { subagents: 1, inputTokens: 5 })).toEqual({ turns: 1, modelCalls: 0, inputTokens: 15, outputTokens: 0, toolCalls: 0, subagents: 1 });
    expect(totalOf([day, day]).inputTokens).toBe(20);
  });

  it("adds nothing for a field that is not a count", () => {
    const sum = addUsage({ ...emptyUsage(), inputTokens: 5 }, { inputTokens: Number.NaN, outputTokens: 2.5, toolCalls: -1, turns: 1 });
    expect(sum).toEqual({ ...emptyUsage(), inputTokens: 5, turns: 1 });
  });

  it("accepts only calendar dates", () => {
    expect(zDay.safeParse("2024-02-29").success).toBe(true);
    for (const bad of ["2026-02-29", "2026-13-01", "2026-1-01", "20260101", "yesterday"]) expect(zDay.safeParse(bad).success, bad).toBe(false);
  });

  it("defaults the range to the 30 days up to today and bounds it", () => {
    const now = () => Date.parse("2026-03-15T12:00:00Z");
    expect(zDayRange(now).parse({})).toEqual({ from: "2026-02-14", to: "2026-03-15" });
    expect(zDayRange(now).parse({ to: "2026-01-31" })).toEqual({ from: "2026-01-02", to: "2026-01-31" });
    expect(zDayRange(now).safeParse({ from: "2026-03-02", to: "2026-03-01" }).success).toBe(false);
    expect(zDayRange(now).safeParse({ from: "2025-01-01", to: "2026-01-01" }).success).toBe(true);
    expect(zDayRange(now).safeParse({ from: "2025-01-01", to: "2026-01-02" }).success).toBe(false);
  });
});
