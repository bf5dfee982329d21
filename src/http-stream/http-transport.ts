/**
 * Streamable HTTP (the ACP transport RFD) on a connection object: POST carries
 * the client's messages into the same `Connection` a WebSocket feeds, GET opens
 * the connection's or a session's SSE stream, DELETE ends the connection. Only
 * the framing differs; every ACP method runs through the one method table.
 */
import * as z from "zod";
import { ErrorCode } from "@hermes-edge/protocol";
import type { Connection } from "../connection/connection.js";
import { CONNECTION_ID_HEADER, TENANT_HEADER } from "../connection/connection.js";
import { errorResponse } from "../http/http-error.js";
import type { HttpWatch } from "../keys/key-watch.js";
import { unwrap } from "../connection/unwrap.js";
import { parseLastEventId } from "./event-id.js";
import { SSE_IDLE_MS, SseChannels } from "./sse-channels.js";

export const SESSION_ID_HEADER = "Acp-Session-Id";
/** A session's SSE stream closes after this long without an event (the client reopens it). */
export { SSE_IDLE_MS };

/** Methods that act on a session the connection must already have attached (load and resume attach it). */
const ATTACHED_METHODS = new Set([
  "session/prompt",
  "session/cancel",
  "session/set_mode",
  "session/set_config_option",
  "session/set_model",
  "session/close",
]);

const zId = z.union([z.string(), z.number()]);
/** Only the envelope is checked here; the method table validates params as for a WebSocket frame. */
const zEnvelope = z.union([
  z.object({ jsonrpc: z.literal("2.0"), method: z.string(), id: zId.optional(), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal("2.0"), id: zId.nullable(), result: z.unknown().optional(), error: z.unknown().optional() }),
]);

const channelsOf = new WeakMap<Connection, SseChannels>();

function fail(status: 400 | 404 | 406 | 409 | 415, message: string, data?: unknown): Response {
  const code = status === 404 ? ErrorCode.resourceNotFound : status === 409 ? ErrorCode.conflict : ErrorCode.invalidRequest;
  return errorResponse({ code, message, data }, { status });
}

/** The connection's streams, made again if the object restarted between a client's requests. */
function channels(connection: Connection): SseChannels {
  let found = channelsOf.get(connection);
  if (!found) {
    found = new SseChannels(SSE_IDLE_MS, async (sessionId, afterSeq, untilSeq) =>
      unwrap(await connection.session(sessionId).logAfter(connection.id, afterSeq, untilSeq)),
    );
    channelsOf.set(connection, found);
    connection.link = found;
  }
  return found;
}

/** The state this request may use: none, or another tenant's, is a 404 (no hint that the id exists). */
function owned(connection: Connection, request: Request): Response | undefined {
  const state = connection.state.get();
  if (!state || !state.http || state.tenant !== request.headers.get(TENANT_HEADER)) {
    return fail(404, "unknown Acp-Connection-Id: initialize a new connection");
  }
  if (state.ended) {
    const { message, reason } = state.ended;
    return errorResponse({ code: ErrorCode.authRequired, message, data: { reason } }, { headers: { "WWW-Authenticate": 'Bearer realm="hermes-edge"' } });
  }
  return undefined;
}

/** For the alarm: an HTTP connection is watched while a stream is open, and its key's end ends it. */
export function httpWatch(connection: Connection): HttpWatch | undefined {
  if (!connection.state.get()?.http) return undefined;
  return {
    streaming: () => channelsOf.get(connection)?.streaming() ?? false,
    end: async (end) => {
      channelsOf.get(connection)?.closeAll();
      channelsOf.delete(connection);
      connection.link = undefined;
      const state = connection.state.get();
      if (!state) return;
      await Promise.allSettled(state.sessions.map((id) => connection.session(id).detach(connection.id)));
      connection.state.update({ sessions: [], ended: { message: end.message, reason: end.reason } });
    },
  };
}

/** A request the Worker authenticated; without `Acp-Connection-Id` it must be the first POST, `initialize`. */
export async function handleHttp(connection: Connection, request: Request): Promise<Response> {
  const fresh = !request.headers.has(CONNECTION_ID_HEADER);
  if (request.method === "GET") return openStream(connection, request);
  if (request.method === "DELETE") {
    const refused = owned(connection, request);
    if (refused) return refused;
    channels(connection).closeAll();
    channelsOf.delete(connection);
    connection.link = undefined;
    await connection.release();
    return new Response(null, { status: 202 });
  }
  const text = await request.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return fail(400, "the body is not JSON", { detail: (err as Error).message });
  }
  if (Array.isArray(json)) return fail(400, "JSON-RPC batches are not supported: POST one message");
  const parsed = zEnvelope.safeParse(json);
  if (!parsed.success) return fail(400, "the body is not a JSON-RPC 2.0 message", { issues: parsed.error.issues });
  const message = parsed.data;
  if (fresh) {
    if (!("method" in message) || message.method !== "initialize" || message.id === undefined) {
      return fail(400, "the first message of a connection must be an initialize request (or send Acp-Connection-Id)");
    }
    const tenant = request.headers.get(TENANT_HEADER);
    if (!tenant) return fail(400, "expected an authenticated request");
    connection.state.save({ tenant, initialized: false, protocolVersion: null, clientCapabilities: {}, sessions: [], http: true });
    await connection.watchKey(request);
    const answer = channels(connection).capture(message.id);
    void connection.receive(text).catch((err: unknown) => console.error("initialize over HTTP failed", err));
    return new Response(await answer, { status: 200, headers: { "Content-Type": "application/json", [CONNECTION_ID_HEADER]: connection.id } });
  }
  const refused = owned(connection, request);
  if (refused) return refused;
  const header = request.headers.get(SESSION_ID_HEADER);
  const named = "method" in message ? sessionIdOf(message.params) : undefined;
  if (header && named && header !== named) return fail(400, `Acp-Session-Id ${header} does not match params.sessionId ${named}`);
  const sessionId = header ?? named;
  const attached = sessionId !== undefined && connection.state.get()!.sessions.includes(sessionId);
  if (sessionId && !attached && (!("method" in message) || ATTACHED_METHODS.has(message.method))) {
    return fail(409, `session ${sessionId} is not attached to this connection: send session/load or session/resume first`);
  }
  const streams = channels(connection);
  if (sessionId && "method" in message && message.id !== undefined) streams.requestFor(sessionId, message.id);
  // Queued in arrival order before the 202, so the client's next POST comes after this one.
  void connection.receive(text).catch((err: unknown) => console.error("a POSTed message failed", { connectionId: connection.id, err }));
  return new Response(null, { status: 202 });
}

async function openStream(connection: Connection, request: Request): Promise<Response> {
  if (!(request.headers.get("Accept") ?? "").includes("text/event-stream")) {
    return fail(406, "GET /acp without a WebSocket upgrade must accept text/event-stream");
  }
  const refused = owned(connection, request);
  if (refused) return refused;
  const sessionId = request.headers.get(SESSION_ID_HEADER);
  if (sessionId !== null && !/^[\w.:-]{1,200}$/.test(sessionId)) return fail(400, "Acp-Session-Id is not a session id");
  // Checked before anything opens: a client that sends an id this service never gave is told so, not silently sent everything or nothing.
  const lastEventId = parseLastEventId(request.headers.get("Last-Event-ID"));
  if (!lastEventId.ok) return fail(400, `Last-Event-ID is not an event id of this service: ${lastEventId.message}`, { lastEventId: request.headers.get("Last-Event-ID") });
  const notAttached = () => fail(409, `session ${sessionId} is not attached to this connection: send session/load or session/resume, then reopen its stream`);
  // Resuming a session stream reads its log, which only an attached session may (the SDK's answer to a 409 is to reattach).
  if (sessionId !== null && lastEventId.position !== null && !connection.state.get()!.sessions.includes(sessionId)) return notAttached();
  await connection.rewatch();
  const opened = await channels(connection).open(sessionId ?? "", lastEventId.position);
  return opened === "not_attached" ? notAttached() : opened;
}

/** Frames from a session for an HTTP connection whose object restarted: buffered for the client's next GET, not refused (which would detach it). */
export function ensureHttpLink(connection: Connection): void {
  const state = connection.state.get();
  if (!connection.link && state?.http && !state.ended) channels(connection);
}

function sessionIdOf(params: unknown): string | undefined {
  const id = (params as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof id === "string" ? id : undefined;
}
