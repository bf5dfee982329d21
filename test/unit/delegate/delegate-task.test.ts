import { describe, expect, it } from "vitest";
import { resultWithoutRun } from "../../../src/delegate/subagent-result.js";
import type { SubagentSpawner, SpawnOptions, DelegatedTask } from "../../../src/delegate/subagent-spec.js";
import { delegateTaskTool, MAX_TASKS_PER_CALL, tasksOf } from "../../../src/delegate/delegate-task.js";
import { ToolError } from "../../../src/tools/tool.js";
import { MAX_CONCURRENT_CHILDREN_LIMIT } from "../../../src/config.js";
import { FakeClient, fakeContext } from "../tools/fakes.js";

describe("delegate_task input", () => {
  const parse = (input: unknown) => delegateTaskTool.inputSchema.safeParse(input);

  it("takes one goal or a batch of tasks, not both and not neither", () => {
    expect(parse({ goal: "a" }).success).toBe(true);
    expect(parse({ tasks: [{ goal: "a" }, { goal: "b", role: "orchestrator" }] }).success).toBe(true);
    expect(parse({ goal: "a", tasks: [{ goal: "b" }] }).success).toBe(false);
    expect(parse({}).success).toBe(false);
    expect(parse({ tasks: [] }).success).toBe(false);
    expect(parse({ tasks: Array.from({ length: MAX_TASKS_PER_CALL + 1 }, () => ({ goal: "x" })) }).success).toBe(false);
    // One call can fill the largest pool there is.
    expect(MAX_TASKS_PER_CALL).toBe(MAX_CONCURRENT_CHILDREN_LIMIT);
    expect(parse({ tasks: Array.from({ length: MAX_CONCURRENT_CHILDREN_LIMIT }, () => ({ goal: "x" })) }).success).toBe(true);
    expect(parse({ goal: "a", role: "boss" }).success).toBe(false);
  });

  it("turns input into tasks with roles and per-task timeouts (a task's own beats the default)", () => {
    expect(tasksOf({ goal: "a", context: "c" })).toEqual([{ goal: "a", context: "c", role: "leaf" }]);
    expect(
      tasksOf({ tasks: [{ goal: "a", timeout_seconds: 2 }, { goal: "b", role: "orchestrator" }], timeout_seconds: 0.5 }),
    ).toEqual([
      { goal: "a", role: "leaf", timeoutMs: 2000 },
      { goal: "b", role: "orchestrator", timeoutMs: 500 },
    ]);
  });

  it("passes an optional model per task, a task's own beating the call's", () => {
    expect(tasksOf({ goal: "a", model: "acp:copilot" })).toEqual([{ goal: "a", role: "leaf", model: "acp:copilot" }]);
    expect(tasksOf({ tasks: [{ goal: "a", model: "gpt-4o" }, { goal: "b" }], model: "acp:copilot" })).toEqual([
      { goal: "a", role: "leaf", model: "gpt-4o" },
      { goal: "b", role: "leaf", model: "acp:copilot" },
    ]);
    expect(parse({ goal: "a", model: "" }).success).toBe(false);
    expect(parse({ goal: "a", model: 3 }).success).toBe(false);
  });

  it("is an execute tool titled after its work", () => {
    expect(delegateTaskTool.kind).toBe("execute");
    expect(delegateTaskTool.title({ goal: "Fix it" })).toBe("Delegate: Fix it");
    expect(delegateTaskTool.title({ tasks: [{ goal: "a" }, { goal: "b" }] })).toBe("Delegate 2 tasks");
  });
});

describe("delegate_task run", () => {
  it("spawns every task, streams one line per task and returns every result, failures included", async () => {
    const spawned: [DelegatedTask, SpawnOptions][] = [];
    const port: SubagentSpawner = {
      async spawn(task, options) {
        spawned.push([task, options]);
        const id = `sub-${options.taskIndex}`;
        options.onEvent({ type: "started", subagentId: id });
        const status = task.goal === "bad" ? "failed" : "completed";
        const result = resultWithoutRun(options.taskIndex, id, "m", status, `${task.goal} ${status}`);
        options.onEvent({ type: "finished", subagentId: id, result });
        return result;
      },
    };
    const ctx = { ...fakeContext(new FakeClient()), subagents: port };
    const outcome = await delegateTaskTool.run({ tasks: [{ goal: "good" }, { goal: "bad" }] }, ctx);
    expect(spawned.map(([t, o]) => [t.goal, o.taskIndex, o.parentToolCallId])).toEqual([
      ["good", 0, "call-1"],
      ["bad", 1, "call-1"],
    ]);
    expect(outcome.output.split("\n")[0]).toBe("2 delegated tasks: 1 completed, 1 failed.");
    expect((outcome.rawOutput as { results: unknown[] }).results).toHaveLength(2);
    const last = ctx.updates.at(-1) as { content: { content: { text: string } }[]; _meta: unknown };
    expect(last.content[0]!.content.text.split("\n")).toEqual([
      "✓ [1] good: completed in 0.0 s — good completed",
      "✗ [2] bad: failed in 0.0 s — bad failed",
    ]);
    expect(last._meta).toEqual({
      hermes: {
        subagents: [
          { taskIndex: 0, subagentId: "sub-0", state: "completed" },
          { taskIndex: 1, subagentId: "sub-1", state: "failed" },
        ],
      },
    });
  });

  it("refuses to run without a delegate port", async () => {
    await expect(delegateTaskTool.run({ goal: "x" }, fakeContext(new FakeClient()))).rejects.toBeInstanceOf(ToolError);
  });
});
