/**
 * What the reconnect tracker hands back: answers to write to the client in the
 * service's place, and requests to send again. Types only.
 * @module
 */
import type { ErrorResponse } from "@agentclientprotocol/sdk";
import type { RequestId } from "./envelope.js";
import type { SessionSetup } from "./session-setup.js";

/** An answer the tracker's owner writes to its client (the editor, the web page) in the service's place. */
export interface ClientAnswer {
  readonly id: RequestId;
  readonly result?: unknown;
  readonly error?: ErrorResponse;
}

export interface ServiceVerdict {
  /** Whether the frame goes on to the client. */
  readonly forward: boolean;
  /** Answers to pending client requests that this frame settles. */
  readonly answers: readonly ClientAnswer[];
  /** Why a frame was held back, for debug logs. */
  readonly dropped?: string;
}

export interface ReattachTarget {
  readonly sessionId: string;
  /** The last seq forwarded; 0 when none was seen (seqs start at 1). */
  readonly afterSeq: number;
  readonly setup: SessionSetup | undefined;
}

export type ReattachOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: ErrorResponse };

/** A request frame to send again, unchanged, on the new connection. */
export interface Resend {
  readonly id: RequestId;
  readonly text: string;
}

/** What re-attaching one session decided. */
export interface ReattachDecision {
  readonly answers: ClientAnswer[];
  /**
   * Prompts the service never saw (the frame was lost with the old socket).
   * They are no longer marked as sent: the caller must queue them for the new
   * connection, ahead of anything the client sent later.
   */
  readonly resend: Resend[];
}
