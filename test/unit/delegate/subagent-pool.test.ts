import { describe, expect, it } from "vitest";
import { SubagentPool, PoolAbortedError } from "../../../src/delegate/subagent-pool.js";

/** A task that runs until released, recording when it started. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("SubagentPool", () => {
  it("never runs more than its capacity and lets every task finish", async () => {
    const pool = new SubagentPool(3);
    let running = 0;
    let max = 0;
    const tasks = Array.from({ length: 10 }, (_, i) =>
      pool.run(async () => {
        running += 1;
        max = Math.max(max, running);
        await new Promise((r) => setTimeout(r, 2 + (i % 3)));
        running -= 1;
        return i;
      }),
    );
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(max).toBe(3);
    expect(pool.peak).toBe(3);
    expect(pool.running).toBe(0);
  });

  it("starts waiting tasks in the order they arrived", async () => {
    const pool = new SubagentPool(1);
    const started: number[] = [];
    const gates = Array.from({ length: 4 }, gate);
    const runs = gates.map((g, i) =>
      pool.run(async () => {
        started.push(i);
        await g.done;
      }),
    );
    await tick();
    expect(started).toEqual([0]);
    expect(pool.waiting).toBe(3);
    for (const [i, g] of gates.entries()) {
      g.release();
      await tick();
      expect(started).toEqual([0, 1, 2, 3].slice(0, Math.min(i + 2, 4)));
    }
    await Promise.all(runs);
  });

  it("a failing task frees its slot and does not touch the others", async () => {
    const pool = new SubagentPool(1);
    const failing = pool.run(async () => {
      throw new Error("boom");
    });
    const next = pool.run(async () => "ok");
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ok");
  });

  it("holds new starts while paused and releases them in order on resume", async () => {
    const pool = new SubagentPool(2, { paused: true });
    const started: number[] = [];
    const runs = [0, 1, 2].map((i) => pool.run(async () => void started.push(i)));
    await tick();
    expect(started).toEqual([]);
    expect(pool.waiting).toBe(3);
    pool.resume();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2]);
  });

  it("pausing leaves running tasks alone and holds only the ones not yet started", async () => {
    const pool = new SubagentPool(1);
    const first = gate();
    const started: string[] = [];
    const a = pool.run(async () => {
      started.push("a");
      await first.done;
    });
    const b = pool.run(async () => void started.push("b"));
    await tick();
    pool.pause();
    first.release();
    await a;
    await tick();
    expect(started).toEqual(["a"]);
    expect(pool.running).toBe(0);
    pool.resume();
    await b;
    expect(started).toEqual(["a", "b"]);
  });

  it("drops a waiting task whose signal aborts, without using a slot", async () => {
    const pool = new SubagentPool(1);
    const first = gate();
    const running = pool.run(() => first.done);
    const controller = new AbortController();
    const waiting = pool.run(async () => "never", controller.signal);
    const after = pool.run(async () => "after");
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(PoolAbortedError);
    expect(pool.waiting).toBe(1);
    first.release();
    await running;
    await expect(after).resolves.toBe("after");
  });

  it("rejects at once when the signal is already aborted", async () => {
    const pool = new SubagentPool(3);
    const controller = new AbortController();
    controller.abort();
    await expect(pool.run(async () => 1, controller.signal)).rejects.toBeInstanceOf(PoolAbortedError);
    expect(pool.running).toBe(0);
  });

  it("refuses a capacity below one", () => {
    expect(() => new SubagentPool(0)).toThrow(RangeError);
  });
});
