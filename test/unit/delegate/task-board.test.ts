import { describe, expect, it } from "vitest";
import { resultWithoutRun } from "../../../src/delegate/subagent-result.js";
import { TaskBoard } from "../../../src/delegate/task-board.js";

describe("TaskBoard", () => {
  it("shows one line per task: queued, running with its current tool, finished with a short summary", () => {
    const board = new TaskBoard(["Read the config", "Run the tests", "Fix the lint"]);
    board.apply(0, { type: "queued", subagentId: "a" });
    board.apply(1, { type: "queued", subagentId: "b" });
    board.apply(2, { type: "queued", subagentId: "c" });
    board.apply(0, { type: "started", subagentId: "a" });
    board.apply(0, { type: "tool", subagentId: "a", title: "Read /w/config.ts" });
    board.apply(1, {
      type: "finished",
      subagentId: "b",
      result: { ...resultWithoutRun(1, "b", "m", "completed", "All 12 tests pass.\nDetails follow"), duration_seconds: 3.24 },
    });
    board.apply(2, { type: "finished", subagentId: "c", result: resultWithoutRun(2, "c", "m", "failed", "The model request failed") });
    expect(board.lines()).toEqual([
      "▶ [1] Read the config: Read /w/config.ts",
      "✓ [2] Run the tests: completed in 3.2 s — All 12 tests pass.",
      "✗ [3] Fix the lint: failed in 0.0 s — The model request failed",
    ]);
    expect(board.content()).toEqual([{ type: "content", content: { type: "text", text: board.lines().join("\n") } }]);
    expect(board.meta().subagents).toEqual([
      { taskIndex: 0, subagentId: "a", state: "running" },
      { taskIndex: 1, subagentId: "b", state: "completed" },
      { taskIndex: 2, subagentId: "c", state: "failed" },
    ]);
  });

  it("says which limit holds a queued task: the session's pool, a pause, or the tenant's maxConcurrentSubagents", () => {
    const board = new TaskBoard(["a", "b", "c"]);
    board.apply(0, { type: "queued", subagentId: "a" });
    board.apply(1, { type: "queued", subagentId: "b", paused: true });
    board.apply(2, { type: "queued", subagentId: "c", tenantLimit: 6 });
    expect(board.lines()).toEqual([
      "… [1] a: waiting for a free slot",
      "… [2] b: held: new sub-agents are paused until _hermes/subagents/resume",
      "… [3] c: waiting for a tenant slot: maxConcurrentSubagents (6) are running across this tenant's sessions",
    ]);
  });

  it("starts every task as pending and ignores events for unknown tasks", () => {
    const board = new TaskBoard(["x"]);
    board.apply(5, { type: "started", subagentId: "z" });
    expect(board.lines()).toEqual(["· [1] x: pending"]);
  });
});
