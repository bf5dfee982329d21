/**
 * The method table of a connection: one entry per ACP method with the zod
 * schema of its params and its handler. Session methods forward to the session
 * object, which answers through its outbox (`DEFERRED`) so order is kept.
 */
import type { z } from "zod";
import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import { initializeResult, TOKEN_AUTH_METHOD_ID } from "../acp/capabilities.js";
import { afterSeqOf, authRequired, invalidParams, type RequestId } from "@hermes-edge/protocol";
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
  zSubagentRef,
} from "../acp/params.js";
import { LISTED_KINDS } from "../db/session-index.js";
import { logout } from "./logout.js";
import type { ConnectionPorts } from "./connection-ports.js";
import { sessionInfo } from "./session-info.js";
import { unwrap } from "./unwrap.js";

/** The session object sends the response itself. */
export const DEFERRED = Symbol("deferred");

export interface MethodContext {
  ports: ConnectionPorts;
  id: RequestId;
}

export interface MethodSpec<S extends z.ZodType = z.ZodType> {
  params: S;
  handler(params: z.output<S>, ctx: MethodContext): Promise<unknown>;
}

const spec = <S extends z.ZodType>(params: S, handler: MethodSpec<S>["handler"]): MethodSpec<S> => ({ params, handler });

export const REQUEST_METHODS: Record<string, MethodSpec> = {
  initialize: spec(zInitialize, async (params, { ports }) => {
    ports.state.update({
      initialized: true,
      protocolVersion: params.protocolVersion,
      clientCapabilities: params.clientCapabilities ?? {},
    });
    return initializeResult(params.clientCapabilities);
  }),

  authenticate: spec(zAuthenticate, async (params, { ports }) => {
    // The token was checked before the upgrade; only the advertised method is accepted.
    if (params.methodId !== TOKEN_AUTH_METHOD_ID) {
      throw authRequired(`unknown authentication method "${params.methodId}"; use "${TOKEN_AUTH_METHOD_ID}"`);
    }
    if (ports.state.get()?.loggedOut) ports.state.update({ loggedOut: false });
    return {};
  }),

  logout: spec(zLogout, async (_params, { ports }) => {
    await logout(ports);
    return {};
  }),

  "session/new": spec(zNewSession, async (params, { ports, id }) => {
    const sessionId = crypto.randomUUID();
    ports.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [] };
    unwrap(await ports.session(sessionId).create(ports.ref(), id, init), () => ports.forgetSession(sessionId));
    return DEFERRED;
  }),

  "session/load": spec(zLoadSession, (params, ctx) => open(params, ctx, true)),
  "session/resume": spec(zResumeSession, (params, ctx) => open(params, ctx, false)),

  "session/list": spec(zListSessions, async (params, { ports }): Promise<ListSessionsResponse> => {
    try {
      const page = await ports.index.list(ports.ref().tenant, { cwd: params.cwd, cursor: params.cursor, kinds: LISTED_KINDS });
      return { sessions: page.sessions.map(sessionInfo), nextCursor: page.nextCursor };
    } catch (err) {
      if (err instanceof RangeError) throw invalidParams([{ path: ["cursor"], message: "invalid cursor" }], "Invalid cursor");
      throw err;
    }
  }),

  "session/prompt": spec(zPrompt, async (params, { ports, id }) => {
    unwrap(await ports.session(params.sessionId).prompt(ports.ref(), id, params.prompt));
    return DEFERRED;
  }),

  "session/fork": spec(zForkSession, async (params, { ports, id }) => {
    const snapshot = unwrap(await ports.session(params.sessionId).forkSnapshot(ports.ref()));
    const sessionId = crypto.randomUUID();
    ports.rememberSession(sessionId);
    const init = { sessionId, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [] };
    unwrap(await ports.session(sessionId).createFork(ports.ref(), id, init, snapshot), () => ports.forgetSession(sessionId));
    return DEFERRED;
  }),

  "session/set_mode": spec(zSetMode, async (params, { ports }) => {
    unwrap(await ports.session(params.sessionId).setConfig(ports.ref(), "mode", params.modeId));
    return {};
  }),

  "session/set_config_option": spec(zSetConfigOption, async (params, { ports }) =>
    unwrap(await ports.session(params.sessionId).setConfig(ports.ref(), params.configId, params.value)),
  ),

  "session/set_model": spec(zSetModel, async (params, { ports }) => {
    unwrap(await ports.session(params.sessionId).setConfig(ports.ref(), "model", params.modelId));
    return {};
  }),

  "session/close": spec(zSessionRef, async (params, { ports }) => {
    const result = unwrap(await ports.session(params.sessionId).close(ports.ref()));
    ports.forgetSession(params.sessionId);
    return result;
  }),

  "session/delete": spec(zSessionRef, async (params, { ports }) => {
    const result = unwrap(await ports.session(params.sessionId).destroy(ports.ref()));
    ports.forgetSession(params.sessionId);
    return result;
  }),

  // Sub-agent control (custom, `_`-prefixed); any connection of the session's tenant may use them.
  "_hermes/subagents/interrupt": spec(zSubagentRef, async (params, { ports }) =>
    unwrap(await ports.session(params.sessionId).subagents(ports.ref().tenant, { action: "interrupt", subagentId: params.subagentId })),
  ),
  "_hermes/subagents/pause": spec(zSessionRef, async (params, { ports }) =>
    unwrap(await ports.session(params.sessionId).subagents(ports.ref().tenant, { action: "pause" })),
  ),
  "_hermes/subagents/resume": spec(zSessionRef, async (params, { ports }) =>
    unwrap(await ports.session(params.sessionId).subagents(ports.ref().tenant, { action: "resume" })),
  ),
};

async function open(
  params: z.output<typeof zResumeSession>,
  { ports, id }: MethodContext,
  replay: boolean,
): Promise<typeof DEFERRED> {
  ports.rememberSession(params.sessionId);
  const options = {
    replay,
    afterSeq: afterSeqOf(params._meta),
    cwd: params.cwd,
    ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
  };
  unwrap(await ports.session(params.sessionId).open(ports.ref(), id, options), () => ports.forgetSession(params.sessionId));
  return DEFERRED;
}
