import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../../src/agent/model-provider.js";
import { DEFAULT_RETRY, retryDelayMs, shouldRetry, sleep, type RetryPolicy } from "../../../src/agent/retry.js";

const policy: RetryPolicy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 };

afterEach(() => vi.useRealTimers());

describe("shouldRetry", () => {
  it("retries a retryable ProviderError while tries remain", () => {
    const err = new ProviderError("429", 429, true);
    expect(shouldRetry(err, 1, policy)).toBe(true);
    expect(shouldRetry(err, 2, policy)).toBe(true);
    expect(shouldRetry(err, 3, policy)).toBe(false);
  });

  it("does not retry a non-retryable ProviderError or any other error", () => {
    expect(shouldRetry(new ProviderError("400", 400, false), 1, policy)).toBe(false);
    expect(shouldRetry(new Error("boom"), 1, policy)).toBe(false);
    expect(shouldRetry("boom", 1, policy)).toBe(false);
  });

  it("gives the default policy three tries in total", () => {
    const err = new ProviderError("503", 503, true);
    expect(DEFAULT_RETRY.attempts).toBe(3);
    expect([1, 2, 3].map((attempt) => shouldRetry(err, attempt, DEFAULT_RETRY))).toEqual([true, true, false]);
  });
});

describe("retryDelayMs", () => {
  it("waits between half and all of an exponentially growing ceiling", () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, policy, () => 0))).toEqual([50, 100, 200, 400]);
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, policy, () => 1))).toEqual([100, 200, 400, 800]);
    expect(retryDelayMs(2, policy, () => 0.5)).toBe(150);
  });

  it("caps the ceiling at maxDelayMs", () => {
    expect(retryDelayMs(5, policy, () => 1)).toBe(1_000);
    expect(retryDelayMs(30, policy, () => 1)).toBe(1_000);
    expect(retryDelayMs(30, policy, () => 0)).toBe(500);
  });

  it("uses Math.random by default and stays inside the bounds", () => {
    for (let i = 0; i < 50; i++) {
      const ms = retryDelayMs(1, DEFAULT_RETRY);
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThanOrEqual(500);
    }
  });
});

describe("sleep", () => {
  it("resolves after the given time", async () => {
    vi.useFakeTimers();
    let done = false;
    void sleep(1_000, new AbortController().signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it("resolves early when the signal aborts and clears its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let done = false;
    void sleep(60_000, controller.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    controller.abort();
    await Promise.resolve();
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("resolves at once when the signal is already aborted", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    controller.abort();
    let done = false;
    void sleep(60_000, controller.signal).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
