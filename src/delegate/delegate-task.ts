/**
 * `delegate_task`: hands one task, or a batch, to sub-agents. Each runs as its
 * own session object with a fresh history; the call's live content shows one
 * line per task, and the model reads a bounded summary and figures per task.
 * A failing task never fails its siblings.
 */
import * as z from "zod";
import { DELEGATE_TOOL_NAME } from "./blocked-tools.js";
import { resultsForModel, type SubagentResult } from "./subagent-result.js";
import type { DelegatedTask } from "./subagent-spec.js";
import { TaskBoard } from "./task-board.js";
import { ToolError, type Tool } from "../tools/tool.js";
import { MAX_CONCURRENT_CHILDREN_LIMIT } from "../config.js";

/**
 * As many tasks as the highest `HERMES_MAX_CONCURRENT_CHILDREN` runs at once,
 * so one call can fill the pool; a session with a lower cap queues the rest.
 */
export const MAX_TASKS_PER_CALL = MAX_CONCURRENT_CHILDREN_LIMIT;
const MAX_TIMEOUT_SECONDS = 3_600;

const zGoal = z.string().trim().min(1).max(20_000);
const zContext = z.string().max(100_000);
const zRole = z.enum(["leaf", "orchestrator"]);
const zTimeout = z.number().positive().max(MAX_TIMEOUT_SECONDS);
const zModel = z.string().trim().min(1).max(200);

const zTask = z.object({
  goal: zGoal.describe("What this sub-agent must achieve, stated so it can work without asking."),
  context: zContext.optional().describe("What it needs to know: files, decisions, constraints. It sees nothing of this conversation."),
  role: zRole.optional().describe("`leaf` (default) does the work; `orchestrator` may delegate further where the depth limit allows."),
  timeout_seconds: zTimeout.optional().describe("Stop this sub-agent after this many seconds."),
  model: zModel.optional().describe("Model for this sub-agent, one of the session's models (e.g. `acp:copilot`). Default: this session's."),
});

const inputSchema = z
  .object({
    goal: zGoal.optional().describe("A single task. Use `tasks` instead for several independent tasks."),
    context: zContext.optional().describe("Context for the single task."),
    role: zRole.optional().describe("Role for the single task."),
    tasks: z.array(zTask).min(1).max(MAX_TASKS_PER_CALL).optional().describe("Independent tasks to run in parallel."),
    timeout_seconds: zTimeout.optional().describe("Default per-sub-agent time limit."),
    model: zModel.optional().describe("Default model for the sub-agents (e.g. `acp:copilot`). Default: this session's."),
  })
  .refine((input) => (input.goal === undefined) !== (input.tasks === undefined), {
    message: "give either `goal` (one task) or `tasks` (a batch), not both",
  });

export type DelegateTaskInput = z.infer<typeof inputSchema>;

export function tasksOf(input: DelegateTaskInput): DelegatedTask[] {
  const seconds = (own: number | undefined) => own ?? input.timeout_seconds;
  const list = input.tasks ?? [{ goal: input.goal!, context: input.context, role: input.role, timeout_seconds: undefined, model: undefined }];
  return list.map((task) => {
    const timeout = seconds(task.timeout_seconds);
    const model = task.model ?? input.model;
    return {
      ...(model !== undefined ? { model } : {}),
      goal: task.goal,
      ...(task.context !== undefined ? { context: task.context } : {}),
      role: task.role ?? "leaf",
      ...(timeout !== undefined ? { timeoutMs: Math.round(timeout * 1000) } : {}),
    };
  });
}

export const delegateTaskTool: Tool<DelegateTaskInput> = {
  name: DELEGATE_TOOL_NAME,
  description:
    "Delegate work to sub-agents that run in parallel, each with a fresh context and its own tools (minus delegation, memory " +
    "and clarify). Give `goal` (and optional `context`) for one task, or `tasks` for a batch of independent ones. " +
    "Sub-agents know nothing of this conversation: put everything they need in goal and context. " +
    "You get back, per task: status (completed, failed, interrupted, timeout), a summary of its final message, model calls, duration, tokens and tools used.",
  kind: "execute",
  // Run again after a restart, a call finds its sub-agents by task (`spawn-ledger.ts`) and waits for them again.
  resumable: true,
  inputSchema,
  title(input) {
    const n = input.tasks?.length ?? 1;
    return n === 1 ? `Delegate: ${(input.goal ?? input.tasks?.[0]?.goal ?? "").slice(0, 80)}` : `Delegate ${n} tasks`;
  },
  async run(input, ctx) {
    const subagents = ctx.subagents;
    if (!subagents) throw new ToolError("This session cannot delegate: the sub-agent depth limit is reached.");
    const tasks = tasksOf(input);
    const board = new TaskBoard(tasks.map((t) => t.goal));
    const publish = () =>
      ctx.emit({
        sessionUpdate: "tool_call_update",
        toolCallId: ctx.toolCallId,
        status: "in_progress",
        content: board.content(),
        _meta: { hermes: board.meta() },
      });
    const results: SubagentResult[] = await Promise.all(
      tasks.map((task, taskIndex) =>
        subagents.spawn(task, {
          taskIndex,
          parentToolCallId: ctx.toolCallId,
          client: ctx.client,
          emit: ctx.emit,
          signal: ctx.signal,
          onEvent: (event) => {
            board.apply(taskIndex, event);
            publish();
          },
        }),
      ),
    );
    return { output: resultsForModel(results), content: board.content(), rawOutput: { results } };
  },
};
