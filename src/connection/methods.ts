/**
 * The method table of a connection: one entry per ACP method with the zod
 * schema of its params and its handler. Session methods forward to the session
 * object, which answers through its outbox (`DEFERRED`) so order is kept.
 */
import type * as z from "zod";
import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import { initializeResult } from "../acp/capabilities.js";
import {
  afterSeqOf,
  connectionIdMeta,
  invalidParams,
  readOnly,
  SESSION_SHARE,
  SESSION_UNSHARE,
  zShareParams,
  zUnshareParams,
  type RequestId,
} from "@hermes-edge/protocol";
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
import { isAdmin, mayCreate } from "../session/access.js";
import { listReadable } from "./session-listing.js";
import { shareSession, unshareSession } from "./share-session.js";
import { logout } from "./logout.js";
import type { Connection } from "./connection.js";
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
    if (!mayCreate(connection.principal())) throw readOnly("a viewer link only watches the session it opens");
    const sessionId = crypto.randomUUID();
    connection.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [], mcpServers: params.mcpServers };
    unwrap(await connection.session(sessionId).create(creatorRef(connection), id, init), () => connection.forgetSession(sessionId));
    connection.madeSession(sessionId);
    return DEFERRED;
  }),

  "session/load": spec(zLoadSession, (params, ctx) => open(params, ctx, true)),
  "session/resume": spec(zResumeSession, (params, ctx) => open(params, ctx, false)),

  "session/list": spec(zListSessions, async (params, { connection }): Promise<ListSessionsResponse> => {
    try {
      return await listReadable(connection.db, connection.ref().tenant, connection.principal(), {
        cwd: params.cwd,
        cursor: params.cursor,
        archived: params.archived ?? "exclude",
      });
    } catch (err) {
      if (err instanceof RangeError) throw invalidParams([{ path: ["cursor"], message: "invalid cursor" }], "Invalid cursor");
      throw err;
    }
  }),

  "session/prompt": spec(zPrompt, async (params, { connection, id }) => {
    const ref = await connection.access(params.sessionId, "drive");
    unwrap(await connection.session(params.sessionId).prompt(ref, id, params.prompt));
    return DEFERRED;
  }),

  "session/fork": spec(zForkSession, async (params, { connection, id }) => {
    if (!mayCreate(connection.principal())) throw readOnly("a viewer link only watches the session it opens");
    const source = await connection.access(params.sessionId, "read");
    const snapshot = unwrap(await connection.session(params.sessionId).forkSnapshot(source));
    const sessionId = crypto.randomUUID();
    connection.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [], mcpServers: params.mcpServers ?? [] };
    unwrap(await connection.session(sessionId).createFork(creatorRef(connection), id, init, snapshot), () => connection.forgetSession(sessionId));
    connection.madeSession(sessionId);
    return DEFERRED;
  }),

  "session/set_mode": spec(zSetMode, async (params, { connection }) => {
    unwrap(await connection.session(params.sessionId).setConfig(await connection.access(params.sessionId, "drive"), "mode", params.modeId));
    return {};
  }),

  "session/set_config_option": spec(zSetConfigOption, async (params, { connection }) =>
    unwrap(await connection.session(params.sessionId).setConfig(await connection.access(params.sessionId, "drive"), params.configId, params.value)),
  ),

  "session/set_model": spec(zSetModel, async (params, { connection }) => {
    unwrap(await connection.session(params.sessionId).setConfig(await connection.access(params.sessionId, "drive"), "model", params.modelId));
    return {};
  }),

  // Someone the session is shared with closes only their own view; the owner (or admin) closes it for everyone.
  "session/close": spec(zSessionRef, async (params, { connection }) => {
    const result = unwrap(await connection.session(params.sessionId).close(await connection.access(params.sessionId, "read")));
    connection.forgetSession(params.sessionId);
    return result;
  }),

  // ACP: deleting an unknown (or already deleted) session succeeds silently; the session object answers `{}`.
  "session/delete": spec(zSessionRef, (params, { connection }) => deleteSession(connection, params.sessionId)),

  // Unstable session metadata: any connection that may drive the session, attached or not.
  "session/set_title": spec(zSetTitle, async (params, { connection }) => {
    await ownedSession(connection, params.sessionId, "drive");
    return unwrap(await connection.session(params.sessionId).setTitle(connection.ref().tenant, params.title));
  }),
  "session/status": spec(zUnstableSessionRef, async (params, { connection }) => statusOf(await ownedSession(connection, params.sessionId, "read"))),
  "session/archive": spec(zUnstableSessionRef, (params, { connection }) => archiveSession(connection, params.sessionId)),
  "session/unarchive": spec(zUnstableSessionRef, (params, { connection }) => unarchiveSession(connection, params.sessionId)),

  // Sub-agent control (custom, `_`-prefixed); any connection that may drive the session.
  "_hermes/subagents/interrupt": spec(zSubagentRef, async (params, { connection }) => {
    await connection.access(params.sessionId, "drive");
    return unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "interrupt", subagentId: params.subagentId }));
  }),
  "_hermes/subagents/pause": spec(zSessionRef, async (params, { connection }) => {
    await connection.access(params.sessionId, "drive");
    return unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "pause" }));
  }),
  "_hermes/subagents/resume": spec(zSessionRef, async (params, { connection }) => {
    await connection.access(params.sessionId, "drive");
    return unwrap(await connection.session(params.sessionId).subagents(connection.ref().tenant, { action: "resume" }));
  }),

  // Sharing (custom): only the owner or the tenant's admin.
  [SESSION_SHARE]: spec(zShareParams, async (params, { connection }) => {
    const row = await ownedSession(connection, params.sessionId, "manage");
    return { shares: await shareSession(connection.sharePorts(), row, params.user, params.role) };
  }),
  [SESSION_UNSHARE]: spec(zUnshareParams, async (params, { connection }) => {
    const row = await ownedSession(connection, params.sessionId, "manage");
    return { shares: await unshareSession(connection.sharePorts(), row, params.user) };
  }),
};

/** A session the caller makes (new, fork) is theirs. */
function creatorRef(connection: Connection) {
  return { ...connection.ref(), role: isAdmin(connection.principal()) ? ("admin" as const) : ("owner" as const) };
}

async function open(
  params: z.output<typeof zResumeSession>,
  { connection, id }: MethodContext,
  replay: boolean,
): Promise<typeof DEFERRED> {
  const afterSeq = afterSeqParam(params._meta);
  const ref = await connection.access(params.sessionId, "read");
  connection.rememberSession(params.sessionId);
  const options = {
    replay,
    afterSeq,
    cwd: params.cwd,
    ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
    ...(params.mcpServers ? { mcpServers: params.mcpServers } : {}),
  };
  unwrap(await connection.session(params.sessionId).open(ref, id, options), () => connection.forgetSession(params.sessionId));
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
