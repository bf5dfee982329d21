/**
 * The method table of a connection: one entry per ACP method with the zod
 * schema of its params and its handler. Session methods forward to the session
 * object, which answers through its outbox (`DEFERRED`) so order is kept.
 */
import type { z } from "zod";
import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import { initializeResult } from "../acp/capabilities.js";
import { afterSeqOf, connectionIdMeta, invalidParams, type RequestId } from "@hermes-edge/protocol";
import {
  zAuthenticate,
  zInitialize,
  zListSessions,
  zLoadSession,
  zLogout,
  zNewSession,
  zPrompt,
  zResumeSession,
  zForkSession,
  zSessionRef,
  zSetConfigOption,
  zSetMode,
  zSetModel,
  zSetTitle,
  zSubagentRef,
  zUnstableSessionRef,
} from "../acp/params.js";
import { authenticate } from "./authenticate.js";
import { archiveSession, ownedSession, statusOf, unarchiveSession } from "./session-archive.js";
import { LISTED_KINDS } from "../db/session-index.js";
import { logout } from "./logout.js";
import type { Connection } from "./connection.js";
import { sessionInfo } from "./session-info.js";
import { deleteSession } from "./session-delete.js";
import { unwrap } from "./unwrap.js";

/** The session object sends the response itself. */
export const DEFERRED = Symbol("deferred");

export interface MethodContext {
  connection: Connection;
  id: RequestId;
}

export interface MethodSpec<S extends z.ZodType = z.ZodType> {
  params: S;
  handler(params: z.output<S>, ctx: MethodContext): Promise<unknown>;
}

const spec = <S extends z.ZodType>(params: S, handler: MethodSpec<S>["handler"]): MethodSpec<S> => ({ params, handler });

export const REQUEST_METHODS: Record<string, MethodSpec> = {
  initialize: spec(zInitialize, async (params, { connection }) => {
    connection.state.update({
      initialized: true,
      protocolVersion: params.protocolVersion,
      clientCapabilities: params.clientCapabilities ?? {},
    });
    return { ...initializeResult(params.clientCapabilities), _meta: connectionIdMeta(connection.id) };
  }),

  authenticate: spec(zAuthenticate, (params, { connection }) => authenticate(params, connection)),

  logout: spec(zLogout, async (_params, { connection }) => {
    await logout(connection);
    return {};
  }),

  "session/new": spec(zNewSession, async (params, { connection, id }) => {
    const sessionId = crypto.randomUUID();
    connection.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [], mcpServers: params.mcpServers };
    unwrap(await connection.session(sessionId).create(connection.ref(), id, init), () => connection.forgetSession(sessionId));
    return DEFERRED;
  }),

  "session/load": spec(zLoadSession, (params, ctx) => open(params, ctx, true)),
  "session/resume": spec(zResumeSession, (params, ctx) => open(params, ctx, false)),

  "session/list": spec(zListSessions, async (params, { connection }): Promise<ListSessionsResponse> => {
    try {
      const page = await connection.index.list(connection.ref().tenant, {
        cwd: params.cwd,
        cursor: params.cursor,
        kinds: LISTED_KINDS,
        archived: params.archived ?? "exclude",
      });
      return { sessions: page.sessions.map(sessionInfo), nextCursor: page.nextCursor };
    } catch (err) {
      if (err instanceof RangeError) throw invalidParams([{ path: ["cursor"], message: "invalid cursor" }], "Invalid cursor");
      throw err;
    }
  }),

  "session/prompt": spec(zPrompt, async (params, { connection, id }) => {
    unwrap(await connection.session(params.sessionId).prompt(connection.ref(), id, params.prompt));
    return DEFERRED;
  }),

  "session/fork": spec(zForkSession, async (params, { connection, id }) => {
    const snapshot = unwrap(await connection.session(params.sessionId).forkSnapshot(connection.ref()));
    const sessionId = crypto.randomUUID();
    connection.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [], mcpServers: params.mcpServers ?? [] };
    unwrap(await connection.session(sessionId).createFork(connection.ref(), id, init, snapshot), () => connection.forgetSession(sessionId));
    return DEFERRED;
  }),

  "session/set_mode": spec(zSetMode, async (params, { connection }) => {
    unwrap(await connection.session(params.sessionId).setConfig(connection.ref(), "mode", params.modeId));
    return {};
  }),

  "session/set_config_option": spec(zSetConfigOption, async (params, { connection }) =>
    unwrap(await connection.session(params.sessionId).setConfig(connection.ref(), params.configId, params.value)),
  ),

  "session/set_model": spec(zSetModel, async (params, { connection }) => {
    unwrap(await connection.session(params.sessionId).setConfig(connection.ref(), "model", params.modelId));
    return {};
  }),

  "session/close": spec(zSessionRef, async (params, { connection }) => {
    const result = unwrap(await connection.session(params.sessionId).close(connection.ref()));
    connection.forgetSession(params.sessionId);
    return result;
  }),

  // ACP: deleting an unknown (or already deleted) session succeeds silently; the session object answers `{}`.
  "session/delete": spec(zSessionRef, (params, { connection }) => deleteSession(connection, params.sessionId)),

  // Unstable session metadata: any connection of the session's tenant, attached or not.
  "session/set_title": spec(zSetTitle, async (params, { connection }) => {
    await ownedSession(connection, params.sessionId);
    return unwrap(await connection.session(params.sessionId).setTitle(connection.ref().tenant, params.title));
  }),
  "session/status": spec(zUnstableSessionRef, async (params, { connection }) => statusOf(await ownedSession(connection, params.sessionId))),
  "session/archive": spec(zUnstableSessionRef, (params, { connection }) => archiveSession(connection, params.sessionId)),
  "session/unarchive": spec(zUnstableSessionRef, (params, { connection }) => unarchiveSession(connection, params.sessionId)),

  // Sub-agent control (custom, `_`-prefixed); any connection of the session's tenant may use them.
  "_hermes/subagents/interrupt": spec(zSubagentRef, async (params, { connection }) =>
    unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "interrupt", subagentId: params.subagentId })),
  ),
  "_hermes/subagents/pause": spec(zSessionRef, async (params, { connection }) =>
    unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "pause" })),
  ),
  "_hermes/subagents/resume": spec(zSessionRef, async (params, { connection }) =>
    unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "resume" })),
  ),
};

async function open(
  params: z.output<typeof zResumeSession>,
  { connection, id }: MethodContext,
  replay: boolean,
): Promise<typeof DEFERRED> {
  const afterSeq = afterSeqParam(params._meta);
  connection.rememberSession(params.sessionId);
  const options = {
    replay,
    afterSeq,
    cwd: params.cwd,
    ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
    ...(params.mcpServers ? { mcpServers: params.mcpServers } : {}),
  };
  unwrap(await connection.session(params.sessionId).open(connection.ref(), id, options), () => connection.forgetSession(params.sessionId));
  return DEFERRED;
}

/**
 * `_meta.hermes.afterSeq`: absent (or null) replays what the method always
 * does; anything but a non-negative integer is refused rather than read as
 * "no replay", which would leave the client silently missing updates.
 */
function afterSeqParam(meta: unknown): number | undefined {
  const raw = (meta as { hermes?: { afterSeq?: unknown } } | null | undefined)?.hermes?.afterSeq;
  const afterSeq = afterSeqOf(meta);
  if (raw != null && afterSeq === undefined) {
    throw invalidParams([{ path: ["_meta", "hermes", "afterSeq"], message: "must be a non-negative integer (the last seq the client has)" }]);
  }
  return afterSeq;
}
