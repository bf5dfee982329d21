/**
 * How a finished turn is stored: a turn that stopped keeps its stop reason; a
 * turn that failed is stored as failed, with its JSON-RPC error and no stop
 * reason (a failure is never a stop reason, so a reconnecting client or a
 * parent reading the record cannot mistake it for a finished turn). Pure.
 */
import type { StopReason } from "@agentclientprotocol/sdk";
import type { PromptState } from "./session-store.js";
import type { SessionRecord } from "./session-record.js";

export interface TurnEndInput {
  stopReason: StopReason | null;
  error?: { code: number; message: string } | undefined;
}

export interface StoredTurnEnd {
  /** The prompt row's state. */
  state: Extract<PromptState, "done" | "failed" | "interrupted">;
  /** The prompt row's stop reason: null for a failed turn. */
  stopReason: StopReason | null;
  /** What the session record keeps of its last turn. */
  record: Pick<SessionRecord, "lastStopReason" | "lastError">;
}

export function turnRecord(outcome: TurnEndInput, interrupted = false): StoredTurnEnd {
  if (outcome.error) {
    const error = { code: outcome.error.code, message: outcome.error.message };
    return { state: "failed", stopReason: null, record: { lastStopReason: null, lastError: error } };
  }
  const stopReason = outcome.stopReason ?? "end_turn";
  return { state: interrupted ? "interrupted" : "done", stopReason, record: { lastStopReason: stopReason, lastError: null } };
}
