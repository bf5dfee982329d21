/**
 * What the parent model reads about one delegated task: a bounded summary and
 * the run's figures. The full text stays in the sub-agent's own history.
 */
import type { StopReason } from "@agentclientprotocol/sdk";
import type { SubagentStopCause } from "./subagent-spec.js";

export type SubagentStatus = "completed" | "failed" | "interrupted" | "timeout";

export interface SubagentTokens {
  input: number;
  output: number;
  total: number;
}

export interface SubagentResult {
  task_index: number;
  /** The sub-agent's ACP session id: `session/load` it to read everything it did. */
  subagent_id: string;
  status: SubagentStatus;
  summary: string;
  api_calls: number;
  duration_seconds: number;
  model: string;
  tokens: SubagentTokens;
  tools_used: string[];
}

/** Characters of a summary the parent model reads; longer ones keep their head and tail. */
export const MAX_SUMMARY_CHARS = 2_000;
const TAIL_SHARE = 0.3;

/** `text` cut to `max` characters around a note that says what was left out and where to find it. */
export function boundSummary(text: string, max = MAX_SUMMARY_CHARS, where = "the sub-agent's session"): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const note = (omitted: number) => `\n\n[… ${omitted} characters omitted; the full text is in ${where} …]\n\n`;
  const budget = Math.max(0, max - note(trimmed.length).length);
  const tail = Math.floor(budget * TAIL_SHARE);
  const head = budget - tail;
  return trimmed.slice(0, head) + note(trimmed.length - head - tail) + (tail > 0 ? trimmed.slice(-tail) : "");
}

/** One line for the editor's progress view: the first line of the summary, cut to `max`. */
export function shortLine(text: string, max = 120): string {
  const first = text.trim().split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return first.length <= max ? first : `${first.slice(0, max - 1)}…`;
}

/** The status of a finished run from how its turn ended. */
export function statusOf(outcome: { stopReason: StopReason | null; error?: unknown; modelCalls?: number }, cause: SubagentStopCause | null): SubagentStatus {
  if (cause === "timeout") return "timeout";
  if (cause === "interrupted" || outcome.stopReason === "cancelled") return "interrupted";
  if (outcome.error !== undefined || outcome.modelCalls === undefined) return "failed";
  if (outcome.stopReason === "max_turn_requests" || outcome.stopReason === "refusal") return "failed";
  return "completed";
}

/** The result of a task that never ran (interrupted while it waited, or its object could not be reached). */
export function resultWithoutRun(task_index: number, subagent_id: string, model: string, status: SubagentStatus, summary: string): SubagentResult {
  return {
    task_index,
    subagent_id,
    status,
    summary,
    api_calls: 0,
    duration_seconds: 0,
    model,
    tokens: { input: 0, output: 0, total: 0 },
    tools_used: [],
  };
}

/** The tool output the parent model reads: a one-line tally, then the results as JSON. */
export function resultsForModel(results: SubagentResult[]): string {
  const counts = new Map<SubagentStatus, number>();
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const tally = [...counts].map(([status, n]) => `${n} ${status}`).join(", ");
  return `${results.length} delegated task${results.length === 1 ? "" : "s"}: ${tally}.\n${JSON.stringify({ results }, null, 2)}`;
}
