/**
 * A sub-agent's task as its own session object keeps it: the spec its parent
 * sent, when it started and, once it has ended, its result. A restarted
 * sub-agent rebuilds its turn from the spec and resumes it; a parent that
 * asks again for a task that has ended gets the stored result, and one that
 * asks while it runs waits for the same run (`taskRunAction`, pure).
 */
import type { SubagentResult } from "./subagent-result.js";
import type { SubagentSpec } from "./subagent-spec.js";

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
  #task: StoredTask | null | undefined;

  constructor(private readonly sql: SqlStorage) {
    // Its own table, beside the session's: a spec (goal, context, MCP tool descriptors) can be large.
    sql.exec(`CREATE TABLE IF NOT EXISTS subagent_task (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)`);
  }

  get(): StoredTask | null {
    if (this.#task === undefined) {
      const row = this.sql.exec<{ body: string }>(`SELECT body FROM subagent_task WHERE id = 1`).toArray()[0];
      this.#task = row ? (JSON.parse(row.body) as StoredTask) : null;
    }
    return this.#task;
  }

  begin(spec: SubagentSpec, startedAt: number): void {
    this.#save({ spec, startedAt, result: null });
  }

  finish(result: SubagentResult): void {
    const task = this.get();
    if (task) this.#save({ ...task, result });
  }

  #save(task: StoredTask): void {
    this.sql.exec(`INSERT OR REPLACE INTO subagent_task (id, body) VALUES (1, ?)`, JSON.stringify(task));
    this.#task = task;
  }
}
