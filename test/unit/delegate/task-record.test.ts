import { describe, expect, it } from "vitest";
import { resultWithoutRun } from "../../../src/delegate/subagent-result.js";
import type { SubagentSpec } from "../../../src/delegate/subagent-spec.js";
import { taskRunAction } from "../../../src/delegate/task-record.js";

const spec = { subagentId: "sub-a", parentSessionId: "p", parentToolCallId: "call_d", taskIndex: 0 } as SubagentSpec;

describe("taskRunAction", () => {
  it("starts a new task, and one stored without a result that is not running here", () => {
    expect(taskRunAction(null, spec, null)).toBe("start");
    expect(taskRunAction({ spec, startedAt: 0, result: null }, spec, null)).toBe("start");
  });

  it("never runs a task twice: the same task asked again is waited for while it runs, and delivered once it has ended", () => {
    expect(taskRunAction({ spec, startedAt: 0, result: null }, spec, spec)).toBe("attach");
    const result = resultWithoutRun(0, "sub-a", "m", "completed", "done");
    expect(taskRunAction({ spec, startedAt: 0, result }, spec, null)).toBe("deliver");
  });

  it("refuses another task while one runs", () => {
    expect(taskRunAction(null, { ...spec, parentToolCallId: "call_e" }, spec)).toBe("refuse");
  });
});
