/**
 * Write-behind for a session's row in the D1 index. Patches merge into one
 * pending write that is stored in the session's own SQLite first, so an
 * eviction cannot lose it, and written to D1 off the turn's path: while a turn
 * is starting the writer is held, and it flushes after the turn's first
 * output or when the turn ends. A failed write stays pending and is retried.
 *
 * A turn's end only moves `updatedAt`, and that alone is written at most
 * every `TOUCH_EVERY_MS`: an editor prompting every few seconds would
 * otherwise cost a D1 write per prompt. Titles, modes and status go at once.
 * The search feed's batch, a second after a turn ends, carries what is pending
 * too (`pendingStatement`), so a kept `updatedAt` mostly costs no round trip of its own.
 */
import type { SessionIndex, SessionIndexUpdate, SessionPatch } from "../db/session-index.js";
import type { SessionStore } from "./session-store.js";

/** `updatedAt` on its own reaches D1 at most this often. */
export const TOUCH_EVERY_MS = 5_000;

export class IndexWriter {
  #held = false;
  #writing: Promise<void> | null = null;
  /**
   * When the last write to D1 began (0: not yet). From its start, not its end: a turn that ends
   * while its title is on its way would otherwise count as long unwritten and write again at once.
   */
  #lastWrite = 0;
  #touchTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly index: SessionIndex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Merges `patch` (plus `updatedAt`) into the pending write; writes it now unless held. */
  update(patch: SessionPatch): void {
    const pending = this.store.pendingIndexPatch<SessionPatch>() ?? {};
    this.store.savePendingIndexPatch({ ...pending, ...patch, updatedAt: this.now() });
    if (!this.#held) void this.flush();
  }

  /**
   * The session was used now (a turn ended). Returns the write to wait for,
   * or null when only `updatedAt` changed within `TOUCH_EVERY_MS` of the last
   * write: that one goes out when the interval is over. (Null rather than a
   * resolved promise, so a caller with nothing to wait for does not yield.)
   */
  touch(): Promise<void> | null {
    const pending = this.store.pendingIndexPatch<SessionPatch>() ?? {};
    this.store.savePendingIndexPatch({ ...pending, updatedAt: this.now() });
    if (this.#due()) return this.#flushDue();
    this.#scheduleTouch();
    return null;
  }

  /** Holds writes back (a turn is on its way to the model). */
  hold(): void {
    this.#held = true;
  }

  /** Lets writes go again and writes what is due; a kept `updatedAt` alone still waits for its time. */
  release(): Promise<void> {
    this.#held = false;
    return this.#due() ? this.#flushDue() : Promise.resolve();
  }

  /**
   * Writes what is still due once a write on its way has landed: that write may have carried
   * everything but a newer `updatedAt`, which then waits for its time like any other.
   */
  async #flushDue(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#due()) return this.flush();
    if (this.store.pendingIndexPatch()) this.#scheduleTouch();
  }

  /** A kept `updatedAt` goes out `TOUCH_EVERY_MS` after the last write, unless a turn holds the writer then. */
  #scheduleTouch(): void {
    this.#touchTimer ??= setTimeout(
      () => {
        this.#touchTimer = null;
        // A turn on its way to the model writes it when its first output arrives.
        if (!this.#held) void this.flush();
      },
      Math.max(0, TOUCH_EVERY_MS - (this.now() - this.#lastWrite)),
    );
  }

  /** Something other than `updatedAt` is pending, or the last write is `TOUCH_EVERY_MS` old. */
  #due(): boolean {
    const pending = this.store.pendingIndexPatch<SessionPatch>();
    if (!pending) return false;
    return Object.keys(pending).some((key) => key !== "updatedAt") || this.now() - this.#lastWrite >= TOUCH_EVERY_MS;
  }

  /** Writes what is pending; resolves when D1 has it (failures are logged and retried on the next flush). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    const pending = this.#takePending();
    if (!pending) return;
    const { sessionId, patch } = pending;
    this.#writing = this.index
      .update(sessionId, patch)
      .then(() => this.#written(patch))
      .catch((err) => console.error(`session index write failed for ${sessionId}; kept for retry`, err))
      .finally(() => {
        this.#writing = null;
      });
    await this.#writing;
  }

  /**
   * What is pending, as a statement for another D1 batch, or null when nothing is. The
   * caller calls `written` once its batch succeeded; until then the write stays pending here.
   */
  pendingStatement(): { statement: SessionIndexUpdate; written(): void } | null {
    const pending = this.#takePending();
    if (!pending) return null;
    const { sessionId, patch } = pending;
    return { statement: this.index.updateStatement(sessionId, patch), written: () => this.#written(patch) };
  }

  /** What is pending and for which session, as a write about to begin (null when there is nothing to write). */
  #takePending(): { sessionId: string; patch: SessionPatch } | null {
    const patch = this.store.pendingIndexPatch<SessionPatch>();
    const sessionId = this.store.record()?.sessionId;
    if (!patch || !sessionId) return null;
    this.#lastWrite = this.now();
    return { sessionId, patch };
  }

  #written(patch: SessionPatch): void {
    // Clear only what was written; what was merged in meanwhile stays pending.
    const pending = this.store.pendingIndexPatch<SessionPatch>() ?? {};
    const written: Record<string, unknown> = patch;
    const rest = Object.fromEntries(Object.entries(pending).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(written[key])));
    if (Object.keys(rest).length > 0) {
      this.store.savePendingIndexPatch(rest);
      return;
    }
    this.store.savePendingIndexPatch(null);
    if (this.#touchTimer !== null) clearTimeout(this.#touchTimer);
    this.#touchTimer = null;
  }
}
