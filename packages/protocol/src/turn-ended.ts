/**
 * `_hermes/turn_ended`: the notification a session sends every attached
 * connection that asked for it (see `wantsTurnEnded`) when a turn ends. It is
 * logged with a seq like an update, so a reconnecting client learns how a
 * prompt ended even if the prompt's own response died with the old socket.
 * @module
 */
import type { ErrorResponse } from "@agentclientprotocol/sdk";
import * as z from "zod";
import type { RequestId } from "./envelope.js";
import { zRequestId } from "./hermes-meta.js";
import { loose } from "./loose.js";

export const TURN_ENDED = "_hermes/turn_ended";

export const zTurnEndedParams = loose({
  sessionId: z.string(),
  /** How the turn stopped; null when it failed (`error` then says how, as the prompt's answer did). */
  stopReason: z.string().nullable(),
  seq: z.number().int(),
  /** Present when the turn failed: the prompt's answer is then this error, not a stop reason. */
  error: loose({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).nullish(),
  _meta: loose({
    hermes: loose({
      /** The prompt's JSON-RPC id; null when the turn was not started by a client request. */
      requestId: zRequestId.nullable(),
      /** The Acp-Connection-Id the prompt came through. */
      connectionId: z.string().nullish(),
      /** The turn was cut off by a restart rather than finished. */
      interrupted: z.boolean().optional(),
    }),
  }),
});
export type TurnEndedParams = z.infer<typeof zTurnEndedParams>;

/** How a prompt ended, as its JSON-RPC response would carry it. */
export type PromptOutcome = { readonly result: { readonly stopReason: string } } | { readonly error: ErrorResponse };

export interface TurnEnded {
  readonly sessionId: string;
  readonly seq: number;
  readonly requestId: RequestId | null;
  readonly connectionId: string | undefined;
  readonly outcome: PromptOutcome;
}

export function readTurnEnded(params: unknown): TurnEnded | undefined {
  const parsed = zTurnEndedParams.safeParse(params);
  if (!parsed.success) return undefined;
  const { sessionId, stopReason, seq, error, _meta } = parsed.data;
  // Neither a stop reason nor an error says nothing about how the prompt ended.
  if (!error && stopReason === null) return undefined;
  const outcome: PromptOutcome = error ? { error } : { result: { stopReason: stopReason! } };
  return { sessionId, seq, requestId: _meta.hermes.requestId, connectionId: _meta.hermes.connectionId ?? undefined, outcome };
}
