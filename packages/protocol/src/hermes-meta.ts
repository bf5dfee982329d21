/**
 * The `_meta.hermes` fields hermes-edge adds to ACP messages, each once, as a
 * zod schema and its type. Readers return undefined when a field is absent or
 * malformed: a peer that does not send it is a plain ACP peer, not an error.
 * @module
 */
import * as z from "zod";
import { loose } from "./loose.js";

/** A request id as hermes-edge echoes it in `_meta` (JSON-RPC: string or integer). */
export const zRequestId = z.union([z.string(), z.number().int()]);

const hermes = <T extends z.ZodRawShape>(shape: T) => loose({ hermes: loose(shape) });

// ---- session/update: `_meta.hermes.seq` -------------------------------------

/**
 * `session/update` params `_meta`: the update's position in the session's
 * update log (from 1) and, on a `user_message_chunk`, the connection whose
 * prompt it is. That connection is not sent it live (its editor shows the
 * prompt already); a client re-attaching after a drop tells its own by it.
 */
export const zUpdateSeqMeta = hermes({ seq: z.number().int(), connectionId: z.string().optional() });
export type UpdateSeqMeta = z.infer<typeof zUpdateSeqMeta>;

const zSessionUpdateSeq = loose({ sessionId: z.string(), update: loose({ sessionUpdate: z.unknown() }).optional().catch(undefined), _meta: zUpdateSeqMeta });

export interface UpdateSeq {
  sessionId: string;
  seq: number;
  /** Set on a user's prompt: the connection it came through. */
  promptedThrough?: string;
}

/** `session/update` params → session and `_meta.hermes.seq`, if both are there. */
export function readUpdateSeq(params: unknown): UpdateSeq | undefined {
  const parsed = zSessionUpdateSeq.safeParse(params);
  if (!parsed.success) return undefined;
  const { sessionId, update, _meta } = parsed.data;
  const promptedThrough = update?.sessionUpdate === "user_message_chunk" ? _meta.hermes.connectionId : undefined;
  return { sessionId, seq: _meta.hermes.seq, ...(promptedThrough !== undefined ? { promptedThrough } : {}) };
}

export function updateSeqMeta(seq: number, promptedThrough?: string): UpdateSeqMeta {
  return { hermes: { seq, ...(promptedThrough !== undefined ? { connectionId: promptedThrough } : {}) } };
}

// ---- session/load, session/resume params: `_meta.hermes.afterSeq` ----------

/** Replay only the log entries after this seq (0: everything). */
export const zAfterSeqMeta = hermes({ afterSeq: z.number().int().min(0) });
export type AfterSeqMeta = z.infer<typeof zAfterSeqMeta>;

/** The `afterSeq` in a load/resume request's `_meta`, if it is a non-negative integer. */
export function afterSeqOf(meta: unknown): number | undefined {
  const parsed = zAfterSeqMeta.safeParse(meta);
  return parsed.success ? parsed.data.hermes.afterSeq : undefined;
}

export function afterSeqMeta(afterSeq: number): AfterSeqMeta {
  return { hermes: { afterSeq } };
}

// ---- initialize result: `_meta.hermes.connectionId` -------------------------

/**
 * The connection's id (the `Acp-Connection-Id` of its upgrade), for clients
 * that cannot read the upgrade's headers: a browser. A turn's
 * `_hermes/turn_ended` and `_meta.hermes.turn` name the connection a prompt
 * came through, and a client tells its own prompts from another client's by it.
 */
export const zConnectionIdMeta = hermes({ connectionId: z.string().min(1) });
export type ConnectionIdMeta = z.infer<typeof zConnectionIdMeta>;

export function connectionIdMeta(connectionId: string): ConnectionIdMeta {
  return { hermes: { connectionId } };
}

/** `initialize` result → `_meta.hermes.connectionId`, if the service sent it. */
export function readConnectionId(result: unknown): string | undefined {
  const parsed = loose({ _meta: zConnectionIdMeta }).safeParse(result);
  return parsed.success ? parsed.data._meta.hermes.connectionId : undefined;
}

// ---- session/load, session/resume results: `_meta.hermes.turn` -------------

/** Where the session's turn stands, so a reconnecting client can settle the prompt it sent. */
export const zTurnState = loose({
  state: z.enum(["idle", "running"]),
  lastStopReason: z.string().nullish(),
  /** The error the last turn failed with (it then has no stop reason): the prompt's answer is this error. */
  lastError: loose({ code: z.number().int(), message: z.string() }).nullish(),
  /** How often the running turn has resumed after a restart (present while it runs). */
  resumes: z.number().int().nonnegative().optional(),
  /** The JSON-RPC id and Acp-Connection-Id of the prompt whose turn ended last. */
  lastRequestId: zRequestId.nullish(),
  lastConnectionId: z.string().nullish(),
  /** The text of a prompt whose turn a restart cut off (`/retry` runs it again). */
  interruptedPrompt: z.string().nullish(),
});
export type TurnState = z.infer<typeof zTurnState>;

const zTurnStateResult = loose({ _meta: hermes({ turn: zTurnState }) });

/** `session/load`/`session/resume` result → `_meta.hermes.turn`, if the service sent it. */
export function readTurnState(result: unknown): TurnState | undefined {
  const parsed = zTurnStateResult.safeParse(result);
  return parsed.success ? parsed.data._meta.hermes.turn : undefined;
}

// ---- `_meta.hermes.sessionProvenance` --------------------------------------

export const zSegmentKind = z.enum(["root", "subagent", "fork", "continuation"]);
export type SegmentKind = z.infer<typeof zSegmentKind>;

/**
 * Where the history segment the model now sees comes from. Sent on
 * new/load/resume/fork results and on the updates that follow a compaction.
 */
export const zSessionProvenance = loose({
  acpSessionId: z.string(),
  currentHermesSessionId: z.string(),
  rootHermesSessionId: z.string(),
  parentHermesSessionId: z.string().nullable(),
  sessionKind: zSegmentKind,
  compressionDepth: z.number().int().min(0),
  isContinuation: z.boolean(),
  previousHermesSessionId: z.string().optional(),
  reason: z.literal("compression").optional(),
});
export type SessionProvenance = z.infer<typeof zSessionProvenance>;

const zProvenanceCarrier = loose({ _meta: hermes({ sessionProvenance: zSessionProvenance }) });

/** Any result or update carrying `_meta.hermes.sessionProvenance`. */
export function readSessionProvenance(value: unknown): SessionProvenance | undefined {
  const parsed = zProvenanceCarrier.safeParse(value);
  return parsed.success ? parsed.data._meta.hermes.sessionProvenance : undefined;
}

// ---- initialize: `clientCapabilities._meta.hermes.turnEnded` ---------------

/**
 * A client opts in to `_hermes/turn_ended` with `clientCapabilities._meta.hermes.turnEnded: true`
 * at `initialize`; others (generic ACP clients) never receive it.
 */
export const zTurnEndedCapability = hermes({ turnEnded: z.boolean() });

/** Whether `initialize`'s `clientCapabilities` ask for `_hermes/turn_ended`. */
export function wantsTurnEnded(clientCapabilities: unknown): boolean {
  if (typeof clientCapabilities !== "object" || clientCapabilities === null) return false;
  const parsed = zTurnEndedCapability.safeParse((clientCapabilities as { _meta?: unknown })._meta);
  return parsed.success && parsed.data.hermes.turnEnded;
}

/** `initialize` params with the turn-ended opt-in added; everything else kept as it was. */
export function withTurnEndedCapability(initializeParams: unknown): unknown {
  if (typeof initializeParams !== "object" || initializeParams === null || Array.isArray(initializeParams)) return initializeParams;
  const params = initializeParams as Record<string, unknown>;
  const caps = asRecord(params["clientCapabilities"]);
  const meta = asRecord(caps["_meta"]);
  const hermesMeta = asRecord(meta["hermes"]);
  return { ...params, clientCapabilities: { ...caps, _meta: { ...meta, hermes: { ...hermesMeta, turnEnded: true } } } };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
