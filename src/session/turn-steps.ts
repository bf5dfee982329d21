/**
 * The running turn's own record in the session's SQLite: which prompt row
 * runs, when it started, how often it has resumed, and where each tool call
 * of its current step stands. Together with the history (every model answer
 * and tool result is a row, written before the next step begins) it is the
 * turn's state: a restarted object reads it to continue the turn. It also
 * keeps the ids of the requests each tool call sent the editor, so the call
 * run again after a restart asks under the same ids (`step-client.ts`).
 */
import type { UsageDelta } from "../tenant/usage.js";
import type { RunningTurn, ToolPhase } from "./resume-decision.js";

interface Stored extends RunningTurn {
  phases: Record<string, ToolPhase>;
  /**
   * What the turn adds to usage when it ends, however it ends (a restart's
   * interruption too): counted then, with the turn's last write of the
   * session record, rather than in a write of its own before the model
   * request. Absent in turns stored before: those were counted as they began.
   */
  usage?: UsageDelta;
  /** Per tool call: the id of each request it sent the editor, by `method#n` (its n-th of that method). Absent in turns stored before ids were kept. */
  requests?: Record<string, Record<string, string>>;
}

export class TurnSteps {
  #turn: Stored | null | undefined;

  constructor(private readonly sql: SqlStorage) {
    // Its own table: the store's schema steps are not touched by the turn's bookkeeping.
    sql.exec(`CREATE TABLE IF NOT EXISTS turn_steps (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL)`);
  }

  /** The turn recorded as running, if any. */
  running(): (RunningTurn & { phases: Readonly<Record<string, ToolPhase>> }) | null {
    return this.#stored();
  }

  #stored(): Stored | null {
    if (this.#turn === undefined) {
      const row = this.sql.exec<{ body: string }>(`SELECT body FROM turn_steps WHERE id = 1`).toArray()[0];
      this.#turn = row ? (JSON.parse(row.body) as Stored) : null;
    }
    return this.#turn;
  }

  begin(promptId: number, now: number, usage: UsageDelta): void {
    this.#save({ promptId, startedAt: now, resumes: 0, phases: {}, usage });
  }

  resumed(resumes: number): void {
    const turn = this.#stored();
    if (turn) this.#save({ ...turn, resumes });
  }

  /** A tool call started, or began or stopped waiting on the editor. Written with the step's other rows. */
  phase(toolCallId: string, phase: ToolPhase): void {
    const turn = this.#stored();
    if (turn) this.#save({ ...turn, phases: { ...turn.phases, [toolCallId]: phase } });
  }

  /** The id a tool call's request went out under before a restart, if it did. */
  requestId(toolCallId: string, key: string): string | undefined {
    return this.#stored()?.requests?.[toolCallId]?.[key];
  }

  /** A tool call sent the editor a request (kept until its step is done). */
  asked(toolCallId: string, key: string, requestId: string): void {
    const turn = this.#stored();
    if (!turn || turn.requests?.[toolCallId]?.[key] === requestId) return;
    const requests = { ...turn.requests, [toolCallId]: { ...turn.requests?.[toolCallId], [key]: requestId } };
    this.#save({ ...turn, requests });
  }

  /** A model message's tool calls all have results: their phases and requests are history now. */
  stepDone(): void {
    const turn = this.#stored();
    if (turn && (Object.keys(turn.phases).length > 0 || turn.requests)) this.#save({ ...turn, phases: {}, requests: undefined });
  }

  /** The turn is over: returns what it adds to usage (nothing when no turn was recorded). */
  end(): UsageDelta | undefined {
    const turn = this.#stored();
    if (turn === null) return undefined;
    this.sql.exec(`DELETE FROM turn_steps WHERE id = 1`);
    this.#turn = null;
    return turn.usage;
  }

  #save(turn: Stored): void {
    this.sql.exec(`INSERT OR REPLACE INTO turn_steps (id, body) VALUES (1, ?)`, JSON.stringify(turn));
    this.#turn = turn;
  }
}
