import { describe, expect, it } from "vitest";
import { Outbox } from "../src/outbox.js";

describe("Outbox", () => {
  it("refuses items past its limit and keeps the ones it took, in order", () => {
    const outbox = new Outbox(2);
    expect(outbox.push({ kind: "request", id: 1, text: "a" })).toBe(true);
    expect(outbox.push({ kind: "notification", text: "b" })).toBe(true);
    expect(outbox.isFull).toBe(true);
    expect(outbox.push({ kind: "request", id: 3, text: "c" })).toBe(false);
    expect(outbox.drain().map((i) => i.text)).toEqual(["a", "b"]);
    expect(outbox.size).toBe(0);
  });

  it("puts re-sent requests ahead of what was queued after them", () => {
    const outbox = new Outbox();
    outbox.push({ kind: "notification", text: "later" });
    outbox.unshift([{ kind: "request", id: 1, text: "first" }, { kind: "request", id: 2, text: "second" }]);
    expect(outbox.drain().map((i) => i.text)).toEqual(["first", "second", "later"]);
  });
});
