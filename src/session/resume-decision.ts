/**
 * What a restarted session does with the turn it finds running: resume it
 * (within the bounds) or record it as interrupted, and, for each tool call
 * the restart left without a result, whether to run it again or to tell the
 * model it was interrupted. Pure: the runner and the turn apply it.
 */
import type { ToolKind } from "@agentclientprotocol/sdk";
import type { ChatMessage, ModelToolCall } from "../agent/model-provider.js";

/** A turn resumes at most this many times… */
export const MAX_RESUMES = 3;
/** …and only within this long of its start. */
export const RESUME_WINDOW_MS = 30 * 60_000;

/** Where a tool call stood when the restart came (see `TurnSteps`). */
export type ToolPhase = "started" | "asking";

export interface RunningTurn {
  promptId: number;
  startedAt: number;
  resumes: number;
}

export type TurnResumeDecision = { action: "resume"; resumes: number } | { action: "interrupt"; reason: "too_many_resumes" | "too_old" };

export function decideTurnResume(turn: RunningTurn, now: number): TurnResumeDecision {
  if (turn.resumes >= MAX_RESUMES) return { action: "interrupt", reason: "too_many_resumes" };
  if (now - turn.startedAt > RESUME_WINDOW_MS) return { action: "interrupt", reason: "too_old" };
  return { action: "resume", resumes: turn.resumes + 1 };
}

export interface PendingCall {
  id: string;
  name: string;
  /** The tool's kind; undefined when the tool is no longer offered. */
  kind: ToolKind | undefined;
  /** Whether the tool reaches something whose effect the service cannot see (an MCP server). */
  external: boolean;
  /** Whether running the tool again re-attaches to the work it started instead of repeating it (`delegate_task`). */
  resumable?: boolean;
  /** Null when the call had not started (a later call of the same model message). */
  phase: ToolPhase | null;
}

export type CallDecision = { id: string; action: "rerun" } | { id: string; action: "interrupted"; result: string };

export const INTERRUPTED_RESULT =
  "Interrupted: the service restarted while this tool call ran, so it may or may not have completed. Check its effect before relying on it or running it again.";

export const UNAVAILABLE_RESULT =
  "Interrupted: the service restarted during this tool call and no editor has reattached since, so its tool is not available to run it again. It may or may not have completed.";

/**
 * A call whose effect cannot be known is never run again silently: a command
 * (or an MCP call) that had started. One that was only waiting on the editor
 * (its permission question) is asked again; reads, edits, searches, the plan
 * and questions to the user are run again, since running them twice gives the
 * same result. A delegation runs again too: its sub-agents are sessions that
 * resume their own turns, and running it again waits for their results
 * (each delivered once) instead of starting them again.
 */
export function decideCall(call: PendingCall): CallDecision {
  // It had started, and its tool is no longer offered (no editor came back to lend it): it cannot run again.
  if (call.kind === undefined && call.phase !== null) return { id: call.id, action: "interrupted", result: UNAVAILABLE_RESULT };
  if (call.phase === null || call.phase === "asking" || call.resumable === true) return { id: call.id, action: "rerun" };
  // `execute`: a terminal command or a delegation; an unknown tool never ran (runToolCall answers it at once).
  const unknownEffect = call.external || call.kind === "execute";
  return unknownEffect ? { id: call.id, action: "interrupted", result: INTERRUPTED_RESULT } : { id: call.id, action: "rerun" };
}

/** The line every client sees when a turn continues after a restart. */
export function resumeLine(resumes: number): string {
  const nth = resumes === 1 ? "" : ` (resume ${resumes} of ${MAX_RESUMES})`;
  return `\n\n↻ The service restarted during this turn; it continues from its last completed step${nth}.\n\n`;
}

/** The tool calls of the history's last model message that have no result yet (a restart cut them off). */
export function unansweredCalls(history: readonly ChatMessage[]): ModelToolCall[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;
    const answered = new Set(history.slice(i + 1).flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
    return message.tool_calls
      .filter((c) => !answered.has(c.id) && c.type === "function")
      .map((c) => ({ id: c.id, name: (c as { function: { name: string } }).function.name, arguments: (c as { function: { arguments: string } }).function.arguments }));
  }
  return [];
}
