/**
 * `todo`: the model's task list. Each call sends the complete list, which the
 * editor shows as a `plan` (ACP has no "cancelled", so those show completed and
 * keep the distinction in `_meta.hermes`).
 */
import type { PlanEntry, PlanEntryStatus } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { textBlock } from "./render.js";
import type { Tool } from "./tool.js";

const zStatus = z.enum(["pending", "in_progress", "completed", "cancelled"]);

const inputSchema = z.object({
  todos: z
    .array(
      z.object({
        id: z.string().min(1).optional().describe("Stable id of the item, if you track one."),
        content: z.string().min(1).describe("What the step is."),
        status: zStatus,
        priority: z.enum(["high", "medium", "low"]).optional().describe("Default: medium."),
      }),
    )
    .max(100)
    .describe("The complete, ordered list: it replaces the previous one."),
});

export type TodoInput = z.infer<typeof inputSchema>;
type TodoStatus = z.infer<typeof zStatus>;

const PLAN_STATUS: Record<TodoStatus, PlanEntryStatus> = {
  pending: "pending",
  in_progress: "in_progress",
  completed: "completed",
  cancelled: "completed",
};

const MARK: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]", cancelled: "[-]" };

export function planEntries(input: TodoInput): PlanEntry[] {
  return input.todos.map((todo) => {
    const hermes = {
      ...(todo.id !== undefined ? { id: todo.id } : {}),
      ...(todo.status === "cancelled" ? { cancelled: true } : {}),
    };
    return {
      content: todo.content,
      status: PLAN_STATUS[todo.status],
      priority: todo.priority ?? "medium",
      ...(Object.keys(hermes).length ? { _meta: { hermes } } : {}),
    };
  });
}

export const todoTool: Tool<TodoInput> = {
  name: "todo",
  description:
    "Keep a task list for multi-step work; the user sees it as a plan. Send the complete list every time, with each item's status " +
    "(pending, in_progress, completed, cancelled). Keep at most one item in_progress.",
  kind: "other",
  inputSchema,
  title: (input) => `Update plan (${input.todos.length} item${input.todos.length === 1 ? "" : "s"})`,
  async run(input, ctx) {
    ctx.emit({ sessionUpdate: "plan", entries: planEntries(input) });
    const counts = new Map<TodoStatus, number>();
    for (const todo of input.todos) counts.set(todo.status, (counts.get(todo.status) ?? 0) + 1);
    const summary = (["completed", "in_progress", "pending", "cancelled"] as const)
      .filter((s) => counts.has(s))
      .map((s) => `${counts.get(s)} ${s.replace("_", " ")}`)
      .join(", ");
    const list = input.todos.map((t) => `${MARK[t.status]} ${t.content}`).join("\n");
    const output = input.todos.length === 0 ? "Plan cleared." : `Plan updated: ${summary}.\n${list}`;
    return { output, content: [textBlock(input.todos.length === 0 ? "Plan cleared." : list)] };
  },
};
