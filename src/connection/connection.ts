/**
 * One transport connection: its socket, its state (kept in SQLite so
 * hibernation loses nothing), the sessions it has attached, and each frame
 * start to finish: size check, decode, then a request through the method
 * table, a notification to its session, or an editor's response back to the
 * session object that asked. The connection object forwards its WebSocket
 * handlers and RPC here.
 *
 * Requests and notifications are handled one at a time, in arrival order
 * (`inOrder`): a `session/cancel` followed by a `session/prompt` must reach the
 * session in that order, and Durable Object RPC does not promise it. Responses
 * skip the line, since a turn may be waiting on one.
 */
import { maxFrameBytes } from "../config.js";
import type { KeyStatus } from "../db/api-keys.js";
import { SessionIndex } from "../db/session-index.js";
import { ShareStore } from "../db/share-store.js";
import type { SharePorts } from "./share-session.js";
import { PRINCIPAL_HEADER, principalOf } from "./principal-header.js";
import { isAdmin, requireAccess, type Action, type Principal } from "../session/access.js";
import type { Env } from "../env.js";
import { checkKey, currentKeyStatus, rewatch, watchKey, type HttpWatch } from "../keys/key-watch.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import type { SessionRpc } from "../session/session-rpc.js";
import type { ClientLink } from "./client-link.js";
import { ConnectionStateStore } from "./connection-state.js";
import {
  decodeFrame,
  ErrorCode,
  errorFrame,
  frameLimitMessage,
  invalidParams,
  invalidRequest,
  MCP_MESSAGE,
  methodNotFound,
  RequestError,
  resultFrame,
  sessionNotFound,
  sessionOfRequestId,
  toErrorResponse,
  type IncomingNotification,
  type IncomingRequest,
  type IncomingResponse,
  UPSTREAM_MESSAGE,
  utf8Bytes,
  zMcpMessageParams,
} from "@hermes-edge/protocol";
import { zCancelRequest, zSessionRef } from "../acp/params.js";
import { requireLogin } from "./logout.js";
import { routeUpstreamMessage } from "./upstream-route.js";
import { DEFERRED, REQUEST_METHODS } from "./methods.js";

/** Internal headers the Worker sets after authenticating; clients never reach the object directly. */
export const TENANT_HEADER = "X-Hermes-Tenant";
export const PROTOCOL_HEADER = "X-Hermes-Protocol";
export const CONNECTION_ID_HEADER = "Acp-Connection-Id";

export class Connection {
  readonly state: ConnectionStateStore;
  readonly index: SessionIndex;
  readonly shares: ShareStore;
  #id: string | undefined;
  /** Sessions this connection's user owns (found so once; a user's ownership never changes). */
  readonly #owned = new Set<string>();
  readonly #stubs = new Map<string, DurableObjectStub<SessionRpc>>();
  /** Frames are handled in arrival order; lost on hibernation, which only happens when idle. */
  readonly #inOrder = serialQueue();
  readonly #maxFrameBytes: number;
  /** The socket closed: frames still in line are handled without it (see `release`). */
  #closed = false;
  /** The open socket found last (see `#socket`); lost on hibernation, with the rest of memory. */
  #ws: WebSocket | undefined;
  /** Set when the client speaks Streamable HTTP: frames go to SSE streams instead of a WebSocket. */
  link: ClientLink | undefined;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {
    this.state = new ConnectionStateStore(ctx.storage.sql);
    this.index = new SessionIndex(env.DB);
    this.shares = new ShareStore(env.DB);
    this.#maxFrameBytes = maxFrameBytes(env);
  }

  /** Read for every frame in and out (a call into the runtime each time), so kept. */
  get id(): string {
    return (this.#id ??= this.ctx.id.toString());
  }

  /** The Worker's authenticated upgrade: accept the socket with the hibernation API. */
  async accept(request: Request): Promise<Response> {
    const tenant = request.headers.get(TENANT_HEADER);
    // The principal too: a transport that forgot it must not make a user's key the tenant's admin.
    if (!tenant || !request.headers.get(PRINCIPAL_HEADER) || request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected an authenticated WebSocket upgrade", { status: 400 });
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    const principal = principalOf(request.headers.get(PRINCIPAL_HEADER));
    this.state.save({ tenant, principal, initialized: false, protocolVersion: null, clientCapabilities: {}, sessions: [] });
    await watchKey(this.ctx, request);
    const headers = new Headers({ [CONNECTION_ID_HEADER]: this.id });
    const protocol = request.headers.get(PROTOCOL_HEADER);
    if (protocol) headers.set("Sec-WebSocket-Protocol", protocol);
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  /** One frame from the client. Binary frames are ignored, as the ACP transport RFD says. */
  async receive(message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") {
      if (!this.state.get()?.binaryIgnored) {
        console.warn("ignoring binary WebSocket frames on this connection: ACP sends one JSON-RPC message per text frame", { connectionId: this.id });
        this.state.update({ binaryIgnored: true });
      }
      return;
    }
    await dispatchFrame(message, this, this.#maxFrameBytes, this.#inOrder);
  }

  /**
   * The socket closed or failed (or a Streamable HTTP DELETE): attached sessions let this connection go,
   * at once, since a request still in line (a prompt waiting for its turn slot) must not keep a gone
   * connection attached. Frames received before the close are still handled, in line, as coming from a
   * closed connection (`ConnectionRef.closed`): a prompt still runs, a cancel still cancels. The state goes after them.
   */
  async release(): Promise<void> {
    const state = this.state.get();
    if (!state || this.#closed) return;
    this.#closed = true;
    const detached = state.sessions;
    await Promise.allSettled(detached.map((id) => this.session(id).detach(this.id)));
    void this.#inOrder(async () => {
      // Sessions the frames in line attached meanwhile (a session/new) let go too.
      const later = this.state.get()?.sessions.filter((id) => !detached.includes(id)) ?? [];
      await Promise.allSettled(later.map((id) => this.session(id).detach(this.id)));
      this.state.clear();
    });
  }

  /** Streamable HTTP's initialize POST: the managed key is watched as for an upgrade. */
  watchKey(request: Request): Promise<void> {
    return watchKey(this.ctx, request);
  }

  /** The alarm: a connection made with a managed key closes once the key is revoked or expires. */
  checkKey(http?: HttpWatch): Promise<void> {
    return checkKey(this.ctx, this.env.DB, http);
  }

  /** An SSE stream opened: its key or link is watched again if the alarm had stopped. */
  rewatch(): Promise<void> {
    return rewatch(this.ctx);
  }

  /** The managed key this connection was opened with, read from D1 now ("active" for a bootstrap token). */
  keyStatus(): Promise<KeyStatus> {
    return currentKeyStatus(this.ctx, this.env.DB);
  }

  /** Frames from session objects; false when the socket is gone. */
  deliver(frames: string[]): boolean {
    const out = this.link ?? this.#socket();
    if (!out) return false;
    for (const frame of frames) out.send(frame);
    return true;
  }

  send(frame: string): void {
    (this.link ?? this.#socket())?.send(frame);
  }

  /** This connection as session objects see it. */
  ref(): ConnectionRef {
    const s = this.state.get()!;
    const p = this.principal();
    const ref: ConnectionRef = { connectionId: this.id, tenant: s.tenant, clientCapabilities: s.clientCapabilities, user: p.user, linkId: p.link?.id ?? null };
    return this.#closed ? { ...ref, closed: true } : ref;
  }

  get db(): D1Database {
    return this.env.DB;
  }

  sharePorts(): SharePorts {
    return { db: this.env.DB, session: (id) => this.session(id), now: Date.now() };
  }

  principal(): Principal {
    return this.state.get()?.principal ?? { user: null };
  }

  /**
   * This connection as the session sees it, with its role there, if that role
   * allows `action`: the one check of a session method on this side (-32002
   * for a session that is none of the caller's, -32001 read_only for too
   * little). The tenant's admin needs no lookup: the session object checks the tenant.
   */
  async access(sessionId: string, action: Action): Promise<ConnectionRef> {
    const ref = this.ref();
    // Once closed, the session no longer knows this connection: only the sessions it had attached are its own.
    if (ref.closed && !this.state.get()!.sessions.includes(sessionId)) throw sessionNotFound(sessionId);
    const principal = this.principal();
    if (isAdmin(principal)) return { ...ref, role: "admin" };
    // Ownership never changes, so an owner's sessions are looked up once per connection.
    if (this.#owned.has(sessionId)) return { ...ref, role: "owner" };
    const found = await this.shares.access(ref.tenant, principal, sessionId);
    if (found?.role === "owner") this.#owned.add(sessionId);
    return { ...ref, role: requireAccess(found?.role ?? null, action, sessionId) };
  }

  /** One stub per session keeps calls to it in the order they were made. */
  session(sessionId: string): DurableObjectStub<SessionRpc> {
    let stub = this.#stubs.get(sessionId);
    if (!stub) {
      stub = this.env.SESSION.get(this.env.SESSION.idFromName(sessionId));
      this.#stubs.set(sessionId, stub);
    }
    return stub;
  }

  /** Cloudflare: after an exception a stub may stay broken; stubs are cheap to make again. */
  dropStubs(): void {
    this.#stubs.clear();
  }

  /** A session this connection made (new or fork): it is the owner, so its calls need no access lookup in D1. */
  madeSession(sessionId: string): void {
    this.#owned.add(sessionId);
  }

  rememberSession(sessionId: string): void {
    const s = this.state.get()!;
    if (!s.sessions.includes(sessionId)) this.state.update({ sessions: [...s.sessions, sessionId] });
  }

  forgetSession(sessionId: string): void {
    this.state.update({ sessions: this.state.get()!.sessions.filter((s) => s !== sessionId) });
  }

  /** Kept while open: every delivery and every answer looks for it, and `getWebSockets` is a call into the runtime. */
  #socket(): WebSocket | undefined {
    if (this.#ws?.readyState === WebSocket.OPEN) return this.#ws;
    this.#ws = this.ctx.getWebSockets().find((ws) => ws.readyState === WebSocket.OPEN);
    return this.#ws;
  }
}

type InOrder = (work: () => Promise<void>) => Promise<void>;

async function dispatchFrame(text: string, connection: Connection, maxFrameBytes: number, inOrder: InOrder): Promise<void> {
  const size = byteLength(text, maxFrameBytes);
  if (size > maxFrameBytes) {
    const error = new RequestError(ErrorCode.invalidRequest, frameLimitMessage(size, maxFrameBytes), {
      limitBytes: maxFrameBytes,
      frameBytes: size,
    });
    const answered = oversizeAnswerId(text);
    const sessionId = sessionOfRequestId(answered);
    if (answered && sessionId && connection.state.get()?.sessions.includes(sessionId)) {
      // An editor's answer (e.g. a huge MCP result) that cannot be read still ends the request waiting for it.
      const message = `The answer of ${size.toLocaleString("en-US")} bytes exceeds the ${maxFrameBytes.toLocaleString("en-US")}-byte frame limit (HERMES_MAX_FRAME_BYTES)`;
      await connection.session(sessionId).clientResponse(connection.id, { id: answered, error: { code: ErrorCode.invalidRequest, message } });
      return;
    }
    connection.send(errorFrame(null, toErrorResponse(error)));
    return;
  }
  const decoded = decodeFrame(text);
  switch (decoded.kind) {
    case "invalid": {
      connection.send(errorFrame(decoded.id, toErrorResponse(decoded.error)));
      // A malformed answer to one of a session's requests still ends the wait for it
      // (a question has no timeout: the turn would hang until cancelled).
      const sessionId = sessionOfRequestId(decoded.id);
      if (typeof decoded.id === "string" && sessionId && connection.state.get()?.sessions.includes(sessionId)) {
        const message = `The editor's answer was not valid JSON-RPC: ${decoded.error.message}${detailOf(decoded.error.data)}`;
        await connection.session(sessionId).clientResponse(connection.id, { id: decoded.id, error: { code: ErrorCode.invalidRequest, message } });
      }
      return;
    }
    case "request":
      return inOrder(() => handleRequest(decoded.message, connection));
    case "notification":
      return inOrder(() => handleNotification(decoded.message, connection));
    case "response":
      return handleResponse(decoded.message, connection);
  }
}

async function handleRequest(message: IncomingRequest, connection: Connection): Promise<void> {
  try {
    if (message.method !== "initialize" && !connection.state.get()?.initialized) {
      throw invalidRequest(`"${message.method}" sent before "initialize"; initialize the connection first`);
    }
    requireLogin(message.method, connection.state.get());
    const spec = REQUEST_METHODS[message.method];
    if (!spec) throw methodNotFound(message.method);
    const parsed = spec.params.safeParse(message.params ?? {});
    if (!parsed.success) throw invalidParams(parsed.error.issues);
    const result = await spec.handler(parsed.data, { connection, id: message.id });
    if (result !== DEFERRED) connection.send(resultFrame(message.id, result));
  } catch (err) {
    // An error thrown across RPC (not an answer) may leave a session's stub broken; the next call gets a fresh one.
    if (!(err instanceof RequestError)) connection.dropStubs();
    connection.send(errorFrame(message.id, toErrorResponse(err)));
  }
}

/** Notifications get no answer, so bad ones are dropped (and logged). */
async function handleNotification(message: IncomingNotification, connection: Connection): Promise<void> {
  if (!connection.state.get()?.initialized || connection.state.get()?.loggedOut) return;
  if (message.method === "session/cancel") {
    const parsed = zSessionRef.safeParse(message.params ?? {});
    if (parsed.success) await connection.session(parsed.data.sessionId).cancel(await connection.access(parsed.data.sessionId, "drive"));
    else console.warn("ignored malformed session/cancel", parsed.error.issues);
    return;
  }
  if (message.method === UPSTREAM_MESSAGE) return routeUpstreamMessage(message.params, connection);
  if (message.method === "$/cancel_request") {
    const parsed = zCancelRequest.safeParse(message.params ?? {});
    if (!parsed.success || parsed.data.requestId === null) return;
    const requestId = parsed.data.requestId;
    // The request may be a prompt queued in any attached session; each ignores ids it does not know.
    await Promise.all(connection.state.get()!.sessions.map((id) => connection.session(id).cancelRequest(connection.ref(), requestId)));
    return;
  }
  if (message.method === MCP_MESSAGE) {
    // Server ids are unique on the connection, not per session: each attached session ignores ids it did not get.
    const parsed = zMcpMessageParams.safeParse(message.params ?? {});
    if (!parsed.success) return console.warn("ignored malformed mcp/message notification", parsed.error.issues);
    await Promise.all(connection.state.get()!.sessions.map((id) => connection.session(id).mcpNotification(connection.id, parsed.data)));
  }
}

async function handleResponse(message: IncomingResponse, connection: Connection): Promise<void> {
  const sessionId = sessionOfRequestId(message.id);
  if (message.id === null || !sessionId || !connection.state.get()?.sessions.includes(sessionId)) return;
  await connection.session(sessionId).clientResponse(connection.ref().connectionId, {
    id: message.id,
    ...(message.error ? { error: message.error } : { result: message.result }),
  });
}

function detailOf(data: unknown): string {
  const detail = (data as { detail?: unknown } | undefined)?.detail;
  return typeof detail === "string" ? ` (${detail})` : "";
}

/** The id of a response to one of the session's requests, read from the start of a frame too large to parse. */
function oversizeAnswerId(text: string): string | null {
  const head = text.slice(0, 512);
  if (/"method"\s*:/.test(head)) return null;
  return /"id"\s*:\s*"(hermes:[^"\\]+:\d+)"/.exec(head)?.[1] ?? null;
}

/** UTF-8 length, computed only when the string could be over the limit. */
function byteLength(text: string, limit: number): number {
  if (text.length * 3 <= limit) return text.length;
  return utf8Bytes(text);
}

/** A queue of async work run one after another; a failure does not stop the line. */
export function serialQueue(): InOrder {
  let tail: Promise<void> = Promise.resolve();
  return (work) => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}
