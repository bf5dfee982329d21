import { describe, expect, it } from "vitest";
import { serialQueue } from "../../../src/connection/connection.js";

describe("serialQueue", () => {
  it("runs work in arrival order, each after the previous one finished", async () => {
    const inOrder = serialQueue();
    const events: string[] = [];
    const slow = inOrder(async () => {
      events.push("a start");
      await new Promise((r) => setTimeout(r, 20));
      events.push("a end");
    });
    const fast = inOrder(async () => {
      events.push("b");
    });
    await Promise.all([slow, fast]);
    expect(events).toEqual(["a start", "a end", "b"]);
  });

  it("keeps going after a failure and reports it to its caller", async () => {
    const inOrder = serialQueue();
    const failed = inOrder(async () => {
      throw new Error("boom");
    });
    const next = inOrder(async () => undefined);
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBeUndefined();
  });
});
