/**
 * A sub-agent's task as its own session object keeps it: the spec its parent
 * sent, when it started and, once it has ended, its result. A restarted
 * sub-agent rebuilds its turn from the spec and resumes it; a parent that
 * asks again for a task that has ended gets the stored result, and one that
 * asks while it runs waits for the same run (`taskRunAction`, pure).
 */
import type { SubagentResult } from "./subagent-result.js";
import type { SubagentSpec } from "./subagent-spec.js";
import { JsonRow } from "../json-row.js";

export interface StoredTask {
  spec: SubagentSpec;
  startedAt: number;
  result: SubagentResult | null;
}

/** What a sub-agent does when its parent asks it to run `spec`. */
export type TaskRunAction = "start" | "attach" | "deliver" | "refuse";

/** The same task: the same sub-agent for the same task of the same `delegate_task` call. */
export function sameTask(a: SubagentSpec, b: SubagentSpec): boolean {
  return a.subagentId === b.subagentId && a.parentSessionId === b.parentSessionId && a.parentToolCallId === b.parentToolCallId && a.taskIndex === b.taskIndex;
}

/**
 * A task asked for again is never run twice: it is delivered once ended, or
 * waited for while it runs here (its run, resumed after a restart or not).
 * Another task while one runs is refused.
 */
export function taskRunAction(stored: StoredTask | null, spec: SubagentSpec, runningHere: SubagentSpec | null): TaskRunAction {
  if (runningHere) return sameTask(runningHere, spec) ? "attach" : "refuse";
  if (stored && sameTask(stored.spec, spec)) return stored.result ? "deliver" : "start";
  return "start";
}

export class TaskRecord {
  /** Its own table, beside the session's: a spec (goal, context, MCP tool descriptors) can be large. */
  readonly #row: JsonRow<StoredTask>;

  constructor(sql: SqlStorage) {
    this.#row = new JsonRow(sql, "subagent_task", "body");
  }

  get(): StoredTask | null {
    return this.#row.get();
  }

  begin(spec: SubagentSpec, startedAt: number): void {
    this.#row.save({ spec, startedAt, result: null });
  }

  finish(result: SubagentResult): void {
    const task = this.get();
    if (task) this.#row.save({ ...task, result });
  }
}
