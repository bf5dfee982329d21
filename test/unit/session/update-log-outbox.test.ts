import { describe, expect, it, vi } from "vitest";
import { MAX_BATCH_FRAMES, Outbox } from "../../../src/session/update-log.js";

/** A deliver function whose calls the test answers one by one. */
function controlledDeliver() {
  const batches: string[][] = [];
  const answers: Array<(ok: boolean) => void> = [];
  const deliver = vi.fn((frames: string[]) => {
    batches.push(frames);
    return new Promise<boolean>((resolve) => answers.push(resolve));
  });
  /** Answers the oldest unanswered delivery and lets the outbox react. */
  const answer = async (ok = true) => {
    const next = answers.shift();
    if (!next) throw new Error("no delivery in flight");
    next(ok);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { batches, deliver, answer };
}

describe("Outbox", () => {
  it("delivers the first frame at once and batches frames pushed while it is in flight, in order", async () => {
    const { batches, deliver, answer } = controlledDeliver();
    const outbox = new Outbox(deliver, () => {});
    outbox.push("a");
    expect(batches).toEqual([["a"]]);
    outbox.push("b");
    outbox.push("c");
    outbox.push("d");
    expect(batches).toHaveLength(1);
    await answer();
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
    outbox.push("e");
    await answer();
    expect(batches).toEqual([["a"], ["b", "c", "d"], ["e"]]);
    await answer();
    expect(deliver).toHaveBeenCalledTimes(3);
    expect(outbox.gone).toBe(false);
  });

  it("never puts more than 1000 frames in one delivery", async () => {
    const batches: string[][] = [];
    const outbox = new Outbox((frames) => {
      batches.push(frames);
      return Promise.resolve(true);
    }, () => {});
    const frames = Array.from({ length: 2_500 }, (_, i) => `f${i}`);
    for (const frame of frames) outbox.push(frame);
    await outbox.drained();
    expect(batches.map((b) => b.length)).toEqual([1, 1_000, 1_000, 499]);
    expect(batches.flat()).toEqual(frames);
  });

  it("goes gone when deliver answers false: queued frames dropped, onGone called once, later pushes ignored", async () => {
    const { batches, deliver, answer } = controlledDeliver();
    const onGone = vi.fn();
    const outbox = new Outbox(deliver, onGone);
    outbox.push("a");
    outbox.push("b");
    await answer(false);
    expect(outbox.gone).toBe(true);
    expect(onGone).toHaveBeenCalledTimes(1);
    expect(batches).toEqual([["a"]]);
    outbox.push("c");
    outbox.push("d");
    await outbox.drained();
    expect(deliver).toHaveBeenCalledTimes(1);
    expect(onGone).toHaveBeenCalledTimes(1);
  });

  it("treats a deliver that rejects twice as gone", async () => {
    const onGone = vi.fn();
    const deliver = vi.fn(() => Promise.reject(new Error("socket closed")));
    const outbox = new Outbox(deliver, onGone);
    outbox.push("a");
    outbox.push("b");
    await outbox.drained();
    expect(outbox.gone).toBe(true);
    expect(onGone).toHaveBeenCalledTimes(1);
    expect(deliver).toHaveBeenCalledTimes(2); // tried once more
    outbox.push("c");
    expect(deliver).toHaveBeenCalledTimes(2);
  });

  it("tries a delivery that threw once more, and keeps a live connection that answers it", async () => {
    const onGone = vi.fn();
    const batches: string[][] = [];
    let calls = 0;
    const deliver = vi.fn((frames: string[]) => {
      batches.push(frames);
      return ++calls === 1 ? Promise.reject(new Error("overloaded")) : Promise.resolve(true);
    });
    const outbox = new Outbox(deliver, onGone);
    outbox.push("a");
    outbox.push("b");
    await outbox.drained();
    expect(outbox.gone).toBe(false);
    expect(onGone).not.toHaveBeenCalled();
    expect(batches).toEqual([["a"], ["a"], ["b"]]);
  });

  it("keeps a batch's characters within what one RPC can carry", async () => {
    const batches: string[][] = [];
    const outbox = new Outbox((frames) => {
      batches.push(frames);
      return Promise.resolve(true);
    }, () => {});
    const big = "x".repeat(3 * 1024 * 1024); // three of these would pass 8 Mi characters
    for (let i = 0; i < 6; i++) outbox.push(`${i}${big}`);
    await outbox.drained();
    expect(batches.map((b) => b.length)).toEqual([1, 2, 2, 1]);
    expect(batches.flat().map((f) => f[0])).toEqual(["0", "1", "2", "3", "4", "5"]);
  });

  it("treats a deliver that throws synchronously as gone", async () => {
    const onGone = vi.fn();
    const deliver = vi.fn((): Promise<boolean> => {
      throw new TypeError("Invalid Durable Object ID");
    });
    const outbox = new Outbox(deliver, onGone);
    outbox.push("a");
    await expect(outbox.drained()).resolves.toBeUndefined();
    expect(outbox.gone).toBe(true);
    expect(onGone).toHaveBeenCalledTimes(1);
  });

  it("drained() resolves at once when idle and only after every pushed frame was handed over", async () => {
    const { batches, deliver, answer } = controlledDeliver();
    const outbox = new Outbox(deliver, () => {});
    await outbox.drained();
    outbox.push("a");
    outbox.push("b");
    let drained = false;
    const waiting = outbox.drained().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(drained).toBe(false);
    await answer();
    expect(drained).toBe(false);
    await answer();
    await waiting;
    expect(drained).toBe(true);
    expect(batches).toEqual([["a"], ["b"]]);
  });
});

/** `total` frames `f0…` in pages of `size`, counting how many frames have been read so far. */
function countedPages(total: number, size: number) {
  const counter = { read: 0, pages: 0 };
  function* pages(): Generator<string[]> {
    for (let start = 0; start < total; start += size) {
      const page = Array.from({ length: Math.min(size, total - start) }, (_, i) => `f${start + i}`);
      counter.read += page.length;
      counter.pages++;
      yield page;
    }
  }
  return { pages: pages(), counter, frames: Array.from({ length: total }, (_, i) => `f${i}`) };
}

describe("Outbox with pages (a replay)", () => {
  it("reads a page only once the frames before it have gone into a batch, so it never holds more than a page and a batch", async () => {
    const PAGE = 500;
    const { pages, counter, frames } = countedPages(12_000, PAGE);
    const batches: string[][] = [];
    let delivered = 0;
    let held = 0;
    const outbox = new Outbox(async (batch) => {
      // Read from the pages but not yet handed over, this batch included.
      held = Math.max(held, counter.read - delivered);
      batches.push(batch);
      await new Promise((r) => setTimeout(r, 1)); // a slow connection
      delivered += batch.length;
      return true;
    }, () => {});
    outbox.pushPages(pages);
    expect(counter.pages).toBe(2); // just what the first batch needs
    await outbox.drained();
    expect(batches.flat()).toEqual(frames);
    expect(batches.every((b) => b.length === MAX_BATCH_FRAMES)).toBe(true);
    expect(held).toBeLessThanOrEqual(MAX_BATCH_FRAMES + PAGE);
  });

  it("delivers frames pushed during a replay after all of it, and a response pushed after the replay after it", async () => {
    const { pages, frames } = countedPages(3_000, 500);
    const batches: string[][] = [];
    const outbox = new Outbox((frames) => {
      batches.push(frames);
      return new Promise((r) => setTimeout(() => r(true), 0));
    }, () => {});
    outbox.push("before");
    outbox.pushPages(pages);
    outbox.push("response");
    await new Promise((r) => setTimeout(r, 0));
    outbox.push("live-1"); // e.g. the running turn's next update, while the replay still pages
    const waiting = outbox.drained();
    outbox.push("live-2");
    await waiting;
    expect(batches.flat()).toEqual(["before", ...frames, "response", "live-1", "live-2"]);
  });

  it("does not resolve drained() until the last page has been handed over", async () => {
    const { pages, counter } = countedPages(2_500, 500);
    const { batches, deliver, answer } = controlledDeliver();
    const outbox = new Outbox(deliver, () => {});
    outbox.pushPages(pages);
    let drained = false;
    const waiting = outbox.drained().then(() => (drained = true));
    await answer();
    await answer();
    await new Promise((r) => setTimeout(r, 0));
    expect(drained).toBe(false);
    expect(counter.read).toBe(2_500);
    await answer(); // the last 500
    await waiting;
    expect(batches.map((b) => b.length)).toEqual([1_000, 1_000, 500]);
  });

  it("resolves drained() for a replay with nothing to send, and still delivers what is pushed next", async () => {
    const batches: string[][] = [];
    const outbox = new Outbox(async (frames) => {
      batches.push(frames);
      return true;
    }, () => {});
    outbox.pushPages([[], []].values()); // e.g. an afterSeq past the log's end, or only turn_ended frames
    await outbox.drained();
    outbox.push("response");
    await outbox.drained();
    expect(batches).toEqual([["response"]]);
  });

  it("ends a replay whose page cannot be read there, and still delivers what was queued behind it", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    function* pages(): Generator<string[]> {
      yield ["r1", "r2"];
      throw new Error("SQLITE_IOERR");
    }
    const batches: string[][] = [];
    const outbox = new Outbox(async (frames) => {
      batches.push(frames);
      return true;
    }, () => {});
    outbox.pushPages(pages());
    outbox.push("response");
    await outbox.drained();
    expect(batches.flat()).toEqual(["r1", "r2", "response"]);
    expect(error).toHaveBeenCalledWith(expect.stringContaining("could not be read"), expect.any(Error));
    error.mockRestore();
  });

  it("skips empty pages and reads no further once the connection has gone", async () => {
    let pagesRead = 0;
    function* pages(): Generator<string[]> {
      yield []; // e.g. a page of nothing but frames the client did not ask for
      for (let i = 0; i < 10; i++) {
        pagesRead++;
        yield Array.from({ length: 500 }, (_, j) => `p${i}-${j}`);
      }
    }
    const { batches, deliver, answer } = controlledDeliver();
    const onGone = vi.fn();
    const outbox = new Outbox(deliver, onGone);
    outbox.pushPages(pages());
    outbox.push("after");
    expect(pagesRead).toBe(2);
    await answer(false);
    await outbox.drained();
    expect(onGone).toHaveBeenCalledTimes(1);
    expect(pagesRead).toBe(2);
    expect(batches).toHaveLength(1);
  });
});

