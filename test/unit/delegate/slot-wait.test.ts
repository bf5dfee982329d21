import { describe, expect, it } from "vitest";
import { holdSlotWithin } from "../../../src/delegate/slot-wait.js";

/** A tenant at its limit: the slot never comes; the wait ends only with its signal. */
const neverFree = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason); // as acquireSubagent's throwIfAborted
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

describe("holdSlotWithin", () => {
  it("gives up after the task's time limit, naming the limit", async () => {
    await expect(holdSlotWithin(neverFree, new AbortController().signal, 30)).rejects.toThrow(
      "No sub-agent slot became free within 30 ms: the tenant is at its maxConcurrentSubagents limit.",
    );
  });

  it("stops at once for a task already cancelled before it began to wait", async () => {
    const task = new AbortController();
    task.abort(new Error("turn cancelled"));
    const started = Date.now();
    await expect(holdSlotWithin(neverFree, task.signal, 60_000)).rejects.toThrow("turn cancelled");
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("returns the release of a slot that comes in time", async () => {
    const release = async () => undefined;
    expect(await holdSlotWithin(async () => release, new AbortController().signal, 1_000)).toBe(release);
  });
});
