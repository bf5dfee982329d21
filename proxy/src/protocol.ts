/**
 * The few ACP and hermes-edge fields the proxy reads, validated with zod.
 * Everything else in a frame is opaque to the proxy and forwarded untouched.
 * Objects are loose: a newer service may add fields, and that must not make
 * the proxy stop recognising what it needs.
 * @module
 */
import { z } from "zod";
import type { InitializeRequest, LoadSessionRequest, ResumeSessionRequest } from "@agentclientprotocol/sdk";
import { zJsonRpcId, type JsonRpcError, type JsonRpcId } from "./jsonrpc.js";

/** What `session/resume` needs again after a reconnect: the session's setup. */
const zSessionSetup = z.looseObject({
  cwd: z.string(),
  mcpServers: z.array(z.unknown()).optional(),
  additionalDirectories: z.array(z.string()).optional(),
});
export type SessionSetup = z.infer<typeof zSessionSetup>;

const zSessionRef = z.looseObject({ sessionId: z.string() });

const zInitializeResult = z.looseObject({
  protocolVersion: z.number().int(),
  agentCapabilities: z
    .looseObject({
      loadSession: z.boolean().nullish(),
      sessionCapabilities: z.looseObject({ resume: z.unknown() }).nullish(),
    })
    .nullish(),
  agentInfo: z.looseObject({ name: z.string(), version: z.string() }).nullish(),
});

const zHermesMeta = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject({ _meta: z.looseObject({ hermes: z.looseObject(shape) }) });

const zSessionUpdate = zSessionRef.and(zHermesMeta({ seq: z.number().int() }));

const zTurnEnded = z
  .looseObject({
    sessionId: z.string(),
    stopReason: z.string(),
    seq: z.number().int(),
    // Present when the turn failed: the prompt's answer is then this error, not a stop reason.
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).nullish(),
  })
  .and(zHermesMeta({ requestId: zJsonRpcId.nullable(), connectionId: z.string().nullish() }));

const zTurnState = zHermesMeta({
  turn: z.looseObject({
    state: z.enum(["idle", "running"]),
    lastStopReason: z.string().nullish(),
    // The JSON-RPC id and Acp-Connection-Id of the prompt whose turn ended last.
    lastRequestId: zJsonRpcId.nullish(),
    lastConnectionId: z.string().nullish(),
  }),
});

/** `session/new`, `session/load` and `session/resume` params → the setup to replay. */
export function readSessionSetup(params: unknown): SessionSetup | undefined {
  const parsed = zSessionSetup.safeParse(params);
  return parsed.success ? parsed.data : undefined;
}

/** Any params or result carrying `sessionId`. */
export function readSessionId(value: unknown): string | undefined {
  const parsed = zSessionRef.safeParse(value);
  return parsed.success ? parsed.data.sessionId : undefined;
}

export interface InitializeInfo {
  readonly protocolVersion: number;
  readonly canResume: boolean;
  readonly canLoad: boolean;
  readonly agentName?: string;
  readonly agentVersion?: string;
}

export function readInitializeResult(result: unknown): InitializeInfo | undefined {
  const parsed = zInitializeResult.safeParse(result);
  if (!parsed.success) return undefined;
  const { protocolVersion, agentCapabilities, agentInfo } = parsed.data;
  const resume = agentCapabilities?.sessionCapabilities?.resume;
  return {
    protocolVersion,
    // ACP: omitted or null means "not supported"; `{}` means supported.
    canResume: resume !== undefined && resume !== null,
    canLoad: agentCapabilities?.loadSession === true,
    ...(agentInfo ? { agentName: agentInfo.name, agentVersion: agentInfo.version } : {}),
  };
}

/** `session/update` params → session and `_meta.hermes.seq`, if both are there. */
export function readUpdateSeq(params: unknown): { sessionId: string; seq: number } | undefined {
  const parsed = zSessionUpdate.safeParse(params);
  return parsed.success ? { sessionId: parsed.data.sessionId, seq: parsed.data._meta.hermes.seq } : undefined;
}

/** How a prompt ended, as its JSON-RPC response would carry it. */
export type PromptOutcome = { readonly result: { readonly stopReason: string } } | { readonly error: JsonRpcError };

export interface TurnEnded {
  readonly sessionId: string;
  readonly seq: number;
  /** Null when the turn was not started by a client request. */
  readonly requestId: JsonRpcId | null;
  readonly connectionId: string | undefined;
  readonly outcome: PromptOutcome;
}

export function readTurnEnded(params: unknown): TurnEnded | undefined {
  const parsed = zTurnEnded.safeParse(params);
  if (!parsed.success) return undefined;
  const { sessionId, stopReason, seq, error, _meta } = parsed.data;
  const outcome: PromptOutcome = error ? { error } : { result: { stopReason } };
  return { sessionId, seq, requestId: _meta.hermes.requestId, connectionId: _meta.hermes.connectionId ?? undefined, outcome };
}

export interface TurnState {
  readonly state: "idle" | "running";
  readonly lastStopReason: string | undefined;
  /** The request id of the prompt whose turn ended last; undefined when the service did not say. */
  readonly lastRequestId: JsonRpcId | undefined;
  /** The connection that prompt came through; undefined when the service did not say. */
  readonly lastConnectionId: string | undefined;
}

/** `session/load`/`session/resume` result → `_meta.hermes.turn`, if the service sent it. */
export function readTurnState(result: unknown): TurnState | undefined {
  const parsed = zTurnState.safeParse(result);
  if (!parsed.success) return undefined;
  const { state, lastStopReason, lastRequestId, lastConnectionId } = parsed.data._meta.hermes.turn;
  return {
    state,
    lastStopReason: lastStopReason ?? undefined,
    lastRequestId: lastRequestId ?? undefined,
    lastConnectionId: lastConnectionId ?? undefined,
  };
}

/** The session parameters as a re-attach request carries them (MCP servers stay opaque). */
type ReattachParams = Omit<ResumeSessionRequest & LoadSessionRequest, "mcpServers"> & { mcpServers: unknown[] };

/**
 * Builds the params of the proxy's own `session/resume` (or `session/load`)
 * after a reconnect. `afterSeq` asks the service for only what was missed.
 */
export function reattachParams(sessionId: string, setup: SessionSetup | undefined, afterSeq: number, fallbackCwd: string): ReattachParams {
  return {
    sessionId,
    // The service requires `cwd`. A session the editor only prompted (never
    // created or loaded through this proxy) has no known cwd; editors start
    // agents in the project root, so the proxy's own cwd is the best guess.
    cwd: setup?.cwd ?? fallbackCwd,
    mcpServers: setup?.mcpServers ?? [],
    ...(setup?.additionalDirectories ? { additionalDirectories: setup.additionalDirectories } : {}),
    _meta: { hermes: { afterSeq } },
  };
}

export const PROTOCOL_VERSION = 1;

/** The `initialize` params `--check` and `--setup` send. */
export function probeInitializeParams(clientName: string, clientVersion: string): InitializeRequest {
  return {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: clientName, version: clientVersion },
  };
}
