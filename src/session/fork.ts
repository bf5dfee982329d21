/**
 * `session/fork`: a snapshot of a session up to its last completed turn (a
 * running turn is not copied), and a new session built from it. The copy is
 * deep: the fork has its own history and log, so nothing done to one reaches
 * the other.
 */
import type { ChatMessage } from "../agent/model-provider.js";
import type { SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";

export interface TurnBoundary {
  segment: number;
  historyId: number;
  seq: number;
}

export interface ForkSnapshot {
  record: SessionRecord;
  history: ChatMessage[];
  /** Logged frames (seq order) up to the boundary, still naming the source session. */
  log: string[];
}

/** Where the last completed turn ends: before the running turn, or now. */
export function completedBoundary(store: SessionStore, runningTurnStart: TurnBoundary | null): TurnBoundary {
  return runningTurnStart ?? { segment: store.segment(), historyId: store.lastHistoryId(), seq: store.lastSeq() };
}

export function takeSnapshot(store: SessionStore, boundary: TurnBoundary): ForkSnapshot {
  return {
    record: store.record()!,
    history: store.history({ segment: boundary.segment, untilId: boundary.historyId }),
    log: store.logRange(0, boundary.seq),
  };
}

/** Copies a snapshot into a new session's store, renaming the session in every logged frame. */
export function importSnapshot(store: SessionStore, snapshot: ForkSnapshot, newSessionId: string): void {
  for (const message of snapshot.history) store.appendHistory(message);
  store.importLog(
    snapshot.log.map((text) => {
      const frame = JSON.parse(text) as { params: { sessionId: string; _meta?: { hermes?: { seq?: number } }; seq?: number } };
      frame.params.sessionId = newSessionId;
      const seq = frame.params._meta?.hermes?.seq ?? frame.params.seq ?? 0;
      return { seq, frame: JSON.stringify(frame) };
    }),
  );
}
