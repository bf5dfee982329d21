/**
 * The tool calls of one model message, run in steps: every read-only call
 * (kinds `read`, `search`, `fetch`, `think`; an MCP tool is one of these only
 * when annotated read-only) runs at once in the first step, then everything
 * else one at a time in the model's order, because edits, commands and
 * anything that asks permission depend on what ran before them. Adjacent
 * `delegate_task` calls share a step: their sub-agents already run side by
 * side through the session's pool, which caps them together. Results reach
 * the history in the model's order, whatever order the calls finish in.
 *
 * `planToolSteps` is the pure decision; `runToolBatch` executes a plan.
 */
import type { SessionUpdate, ToolKind } from "@agentclientprotocol/sdk";
import { DELEGATE_TOOL_NAME } from "../delegate/blocked-tools.js";
import type { ModelToolCall } from "./model-provider.js";
import { runToolCall, textContent } from "./tool-runner.js";
import type { TurnDeps } from "./turn-loop.js";
import type { AnyTool } from "../tools/tool.js";

/** Kinds that only look: they never change the editor's machine and never ask permission. */
const READ_ONLY_KINDS: ReadonlySet<ToolKind> = new Set(["read", "search", "fetch", "think"]);
/** A model that sends dozens of reads at once gets them this many at a time (the editor answers each over one socket). */
export const MAX_PARALLEL_TOOL_CALLS = 8;
export const NOT_RUN_CANCELLED = "Not run: the user cancelled the turn.";

export type StepClass = "read" | "delegate" | "serial";

/** How a call may be scheduled. A call of an unknown tool fails at once without running anything, as a read would. */
export function stepClassOf(call: Pick<ModelToolCall, "name">, tools: readonly AnyTool[]): StepClass {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return "read";
  if (tool.name === DELEGATE_TOOL_NAME) return "delegate";
  return READ_ONLY_KINDS.has(tool.kind) ? "read" : "serial";
}

/**
 * The steps, each a list of call indexes that run together: all reads first,
 * then the rest in the model's order, adjacent delegations merged.
 */
export function planToolSteps(classes: readonly StepClass[]): number[][] {
  const reads = classes.flatMap((c, i) => (c === "read" ? [i] : []));
  const steps: number[][] = reads.length > 0 ? [reads] : [];
  let previous: StepClass | undefined;
  for (const [i, c] of classes.entries()) {
    if (c === "read") continue;
    if (c === "delegate" && previous === "delegate") steps.at(-1)!.push(i);
    else steps.push([i]);
    previous = c;
  }
  return steps;
}

export interface BatchHooks {
  /** A call is about to start (usage counting, progress). */
  started(call: ModelToolCall): void;
  /** A call has finished (progress). */
  ended(call: ModelToolCall): void;
  /** A call's result for the model, delivered in the model's order. */
  deliver(call: ModelToolCall, output: string): void;
}

/**
 * Runs `calls` by `planToolSteps`. On cancel, the calls already running get
 * the signal and are waited for (each ends with its own final status); calls
 * not started are answered "not run" and never shown. A call that throws
 * outside its tool (a broken `title`, say) fails alone.
 */
export async function runToolBatch(
  calls: readonly ModelToolCall[],
  tools: AnyTool[],
  deps: Pick<TurnDeps, "emit" | "toolContext">,
  signal: AbortSignal,
  hooks: BatchHooks,
): Promise<void> {
  const outputs: (string | undefined)[] = calls.map(() => undefined);
  let delivered = 0;
  const flush = () => {
    while (delivered < calls.length && outputs[delivered] !== undefined) {
      hooks.deliver(calls[delivered]!, outputs[delivered]!);
      delivered += 1;
    }
  };
  const runOne = async (index: number) => {
    const call = calls[index]!;
    if (signal.aborted) {
      outputs[index] = NOT_RUN_CANCELLED;
      return;
    }
    hooks.started(call);
    outputs[index] = await runGuarded(call, tools, deps, signal);
    hooks.ended(call);
    flush();
  };
  for (const step of planToolSteps(calls.map((call) => stepClassOf(call, tools)))) {
    if (signal.aborted) {
      for (const index of step) outputs[index] = NOT_RUN_CANCELLED;
      continue;
    }
    await runLimited(step, MAX_PARALLEL_TOOL_CALLS, runOne);
  }
  flush();
}

/** `runToolCall`, with any throw it lets through turned into that call's failure. */
async function runGuarded(call: ModelToolCall, tools: AnyTool[], deps: Pick<TurnDeps, "emit" | "toolContext">, signal: AbortSignal): Promise<string> {
  let announced = false;
  const emit = (update: SessionUpdate) => {
    if (update.sessionUpdate === "tool_call" && update.toolCallId === call.id) announced = true;
    deps.emit(update);
  };
  try {
    return await runToolCall(call, tools, { emit, toolContext: deps.toolContext }, signal);
  } catch (err) {
    const reason = `${call.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`;
    const content = [textContent(reason)];
    deps.emit(
      announced
        ? { sessionUpdate: "tool_call_update", toolCallId: call.id, status: "failed", content }
        : { sessionUpdate: "tool_call", toolCallId: call.id, title: call.name, kind: "other", status: "failed", content },
    );
    return `Error: ${reason}`;
  }
}

/** Runs `run` over `items`, at most `limit` at once, starting them in order. */
async function runLimited(items: readonly number[], limit: number, run: (item: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
