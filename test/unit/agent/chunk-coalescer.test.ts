import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChunkCoalescer, MAX_BUFFERED_DELTAS, type ChunkKind } from "../../../src/agent/chunk-coalescer.js";

let sent: Array<[ChunkKind, string]>;
const record = (kind: ChunkKind, text: string) => void sent.push([kind, text]);

beforeEach(() => {
  sent = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("ChunkCoalescer", () => {
  it("sends the first piece of a kind at once", () => {
    const c = new ChunkCoalescer(record, 50);
    c.push("text", "Hel");
    expect(sent).toEqual([["text", "Hel"]]);
  });

  it("merges later pieces that arrive within the window into one send", () => {
    const c = new ChunkCoalescer(record, 50);
    c.push("text", "a");
    c.push("text", "b");
    c.push("text", "c");
    expect(sent).toEqual([["text", "a"]]);
    vi.advanceTimersByTime(49);
    c.push("text", "d");
    expect(sent).toEqual([["text", "a"]]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "bcd"],
    ]);
  });

  it("starts a new window after a flush by the timer", () => {
    const c = new ChunkCoalescer(record, 50);
    c.push("text", "a");
    c.push("text", "b");
    vi.advanceTimersByTime(50);
    c.push("text", "c");
    c.push("text", "d");
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "b"],
    ]);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "b"],
      ["text", "cd"],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("flushes the buffered kind when the kind switches and keeps the order", () => {
    const c = new ChunkCoalescer(record, 50);
    c.push("reasoning", "think ");
    c.push("reasoning", "more ");
    c.push("reasoning", "still");
    c.push("text", "Answer");
    c.push("text", " part");
    c.push("reasoning", " again");
    c.push("text", " end");
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([
      ["reasoning", "think "],
      ["reasoning", "more still"],
      ["text", "Answer"],
      ["text", " part"],
      ["reasoning", " again"],
      ["text", " end"],
    ]);
    expect(sent.map(([, t]) => t).join("")).toBe("think more stillAnswer part again end");
  });

  it("passes every piece straight through when windowMs is 0", () => {
    const c = new ChunkCoalescer(record, 0);
    c.push("text", "a");
    c.push("text", "b");
    c.push("reasoning", "r");
    c.push("text", "c");
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "b"],
      ["reasoning", "r"],
      ["text", "c"],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ignores empty pieces", () => {
    const c = new ChunkCoalescer(record, 0);
    c.push("text", "");
    c.push("reasoning", "");
    expect(sent).toEqual([]);
  });

  it("flush() sends what is buffered at once, cancels the timer and leaves nothing behind", () => {
    const c = new ChunkCoalescer(record, 50);
    c.push("text", "a");
    c.push("text", "b");
    c.push("text", "c");
    c.flush();
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "bc"],
    ]);
    expect(vi.getTimerCount()).toBe(0);
    c.flush();
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(2);
  });

  it("does not send a piece again after its send threw", () => {
    let fail = true;
    const c = new ChunkCoalescer((kind, text) => {
      if (fail && text === "bc") throw new Error("storage failed");
      record(kind, text);
    }, 50);
    c.push("text", "a");
    c.push("text", "b");
    c.push("text", "c");
    expect(() => c.flush()).toThrow("storage failed");
    fail = false;
    c.flush();
    c.push("text", "d");
    c.flush();
    expect(sent).toEqual([
      ["text", "a"],
      ["text", "d"],
    ]);
  });
});

describe("ChunkCoalescer under a backlog", () => {
  it("flushes on push once the window has passed, even if its timer never got to run", () => {
    let clock = 0;
    const sent: string[] = [];
    const c = new ChunkCoalescer((_, text) => sent.push(text), 5, () => clock);
    c.push("text", "first");
    c.push("text", "a");
    clock = 3;
    c.push("text", "b");
    expect(sent).toEqual(["first"]);
    clock = 5;
    c.push("text", "c");
    expect(sent).toEqual(["first", "abc"]);
    c.flush();
  });

  it("flushes after MAX_BUFFERED_DELTAS pieces whatever the clock says", () => {
    const sent: string[] = [];
    const c = new ChunkCoalescer((_, text) => sent.push(text), 1_000, () => 0);
    c.push("text", "first");
    for (let i = 0; i < MAX_BUFFERED_DELTAS; i++) c.push("text", "x");
    expect(sent).toEqual(["first", "x".repeat(MAX_BUFFERED_DELTAS)]);
    c.flush();
  });
});
