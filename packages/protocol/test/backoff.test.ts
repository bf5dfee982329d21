import { describe, expect, it } from "vitest";
import { backoffCeiling, backoffDelay, DEFAULT_BACKOFF } from "../src/backoff.js";

describe("backoff", () => {
  it("doubles from 250 ms and caps at 10 s", () => {
    const ceilings = Array.from({ length: 9 }, (_, n) => backoffCeiling(n));
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it("jitters between half the ceiling and the ceiling", () => {
    expect(backoffDelay(0, () => 0)).toBe(125);
    expect(backoffDelay(0, () => 0.999999)).toBe(250);
    expect(backoffDelay(3, () => 0.5)).toBe(1500);
    expect(backoffDelay(50, () => 0)).toBe(5000);
    expect(backoffDelay(50, () => 0.999999)).toBe(10_000);
  });

  it("never leaves the [ceiling/2, ceiling] band whatever the random source returns", () => {
    for (const r of [-1, 0, 0.3, 0.7, 1, 2]) {
      for (let attempt = 0; attempt < 12; attempt++) {
        const delay = backoffDelay(attempt, () => r);
        expect(delay).toBeGreaterThanOrEqual(backoffCeiling(attempt) / 2);
        expect(delay).toBeLessThanOrEqual(backoffCeiling(attempt));
      }
    }
  });

  it("treats negative and fractional attempts as the nearest valid attempt", () => {
    expect(backoffCeiling(-3)).toBe(DEFAULT_BACKOFF.initialMs);
    expect(backoffCeiling(1.9)).toBe(500);
  });
});
