import { describe, expect, it } from "vitest";
import { assigned, delivered, taskStart, undelivered } from "../../../src/delegate/spawn-ledger.js";
import { resultWithoutRun } from "../../../src/delegate/subagent-result.js";

describe("the spawn ledger", () => {
  it("spawns a task it has never seen, waits again for one it sent, and gives a delivered result without asking again", () => {
    expect(taskStart(undefined, "call_d", 0)).toEqual({ action: "spawn" });
    let ledger = assigned(undefined, "call_d", 0, "sub-a");
    ledger = assigned(ledger, "call_d", 1, "sub-b");
    expect(taskStart(ledger, "call_d", 0)).toEqual({ action: "reattach", subagentId: "sub-a" });
    const result = resultWithoutRun(1, "sub-b", "m", "completed", "done");
    ledger = delivered(ledger, "call_d", 1, result);
    expect(taskStart(ledger, "call_d", 1)).toEqual({ action: "delivered", result });
    // Another call's tasks are its own.
    expect(taskStart(ledger, "call_e", 0)).toEqual({ action: "spawn" });
    expect(undelivered(ledger)).toEqual(["sub-a"]);
  });
});
