/**
 * Which sub-agent each task of a running `delegate_task` call went to, and
 * the results already delivered, kept with the parent's record. A parent
 * whose turn resumes after a restart runs the call again: each task then
 * finds its sub-agent (and waits for it again) or its delivered result (and
 * the sub-agent is not asked again), so each result reaches the parent once.
 * Pure: the record is read and replaced by the caller.
 *
 * @module
 */
import type { SubagentResult } from "./subagent-result.js";

/** One task of a call: the sub-agent it went to, and its result once delivered. */
export interface LedgerEntry {
  subagentId: string;
  result?: SubagentResult;
}

/** By `delegate_task` call id, then by task index. */
export type SpawnLedger = Record<string, Record<string, LedgerEntry>>;

/** What a task of a call does: start a new sub-agent, wait again for the one it has, or take its delivered result. */
export type TaskStart = { action: "spawn" } | { action: "reattach"; subagentId: string } | { action: "delivered"; result: SubagentResult };

export function taskStart(ledger: SpawnLedger | undefined, toolCallId: string, taskIndex: number): TaskStart {
  const entry = ledger?.[toolCallId]?.[String(taskIndex)];
  if (!entry) return { action: "spawn" };
  return entry.result ? { action: "delivered", result: entry.result } : { action: "reattach", subagentId: entry.subagentId };
}

/** The task went to `subagentId` (stored before the sub-agent is asked, so a restart finds it). */
export function assigned(ledger: SpawnLedger | undefined, toolCallId: string, taskIndex: number, subagentId: string): SpawnLedger {
  return { ...ledger, [toolCallId]: { ...ledger?.[toolCallId], [String(taskIndex)]: { subagentId } } };
}

/** The task's result arrived (stored before the call's result is made of it). */
export function delivered(ledger: SpawnLedger | undefined, toolCallId: string, taskIndex: number, result: SubagentResult): SpawnLedger {
  return { ...ledger, [toolCallId]: { ...ledger?.[toolCallId], [String(taskIndex)]: { subagentId: result.subagent_id, result } } };
}

/** Every sub-agent the ledger names without a delivered result. */
export function undelivered(ledger: SpawnLedger | undefined): string[] {
  return Object.values(ledger ?? {}).flatMap((tasks) => Object.values(tasks).flatMap((e) => (e.result ? [] : [e.subagentId])));
}
