import { describe, expect, it } from "vitest";
import { planEntries, todoTool } from "../../../src/tools/todo.js";
import { FakeClient, fakeContext } from "./fakes.js";

describe("todo", () => {
  it("emits the whole list as a plan update and summarizes it for the model", async () => {
    const ctx = fakeContext(new FakeClient({}));
    const outcome = await todoTool.run(
      {
        todos: [
          { id: "1", content: "Read the code", status: "completed", priority: "high" },
          { content: "Write the fix", status: "in_progress" },
          { content: "Run the tests", status: "pending", priority: "low" },
          { id: "4", content: "Refactor", status: "cancelled" },
        ],
      },
      ctx,
    );
    expect(ctx.updates).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", status: "completed", priority: "high", _meta: { hermes: { id: "1" } } },
          { content: "Write the fix", status: "in_progress", priority: "medium" },
          { content: "Run the tests", status: "pending", priority: "low" },
          { content: "Refactor", status: "completed", priority: "medium", _meta: { hermes: { id: "4", cancelled: true } } },
        ],
      },
    ]);
    expect(outcome.output).toBe(
      "Plan updated: 1 completed, 1 in progress, 1 pending, 1 cancelled.\n[x] Read the code\n[~] Write the fix\n[ ] Run the tests\n[-] Refactor",
    );
    expect(ctx.client.capabilities).toEqual({});
  });

  it("clears the plan with an empty list", async () => {
    const ctx = fakeContext(new FakeClient({}));
    await expect(todoTool.run({ todos: [] }, ctx)).resolves.toMatchObject({ output: "Plan cleared." });
    expect(ctx.updates).toEqual([{ sessionUpdate: "plan", entries: [] }]);
  });

  it("maps cancelled to completed, the only terminal status a plan has", () => {
    expect(planEntries({ todos: [{ content: "x", status: "cancelled" }] })[0]?.status).toBe("completed");
  });

  it("validates statuses and renders as other", () => {
    expect(todoTool.inputSchema.safeParse({ todos: [{ content: "x", status: "done" }] }).success).toBe(false);
    expect(todoTool.inputSchema.safeParse({ todos: [{ content: "", status: "pending" }] }).success).toBe(false);
    expect(todoTool.kind).toBe("other");
    expect(todoTool.title({ todos: [{ content: "x", status: "pending" }] })).toBe("Update plan (1 item)");
    expect(todoTool.available).toBeUndefined();
  });
});
