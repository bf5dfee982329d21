/**
 * One transport connection: its socket, its state (kept in SQLite so
 * hibernation loses nothing), the sessions it has attached, and each frame's
 * way through `dispatchFrame`. The connection object forwards its WebSocket
 * handlers and RPC here.
 */
import { maxFrameBytes } from "../config.js";
import { SessionIndex } from "../db/session-index.js";
import type { Env } from "../env.js";
import { checkKey, watchKey } from "../keys/key-watch.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import type { SessionRpc } from "../session/session-rpc.js";
import { ConnectionStateStore } from "./connection-state.js";
import { dispatchFrame, serialQueue } from "./dispatch.js";

/** Internal headers the Worker sets after authenticating; clients never reach the object directly. */
export const TENANT_HEADER = "X-Hermes-Tenant";
export const PROTOCOL_HEADER = "X-Hermes-Protocol";
export const CONNECTION_ID_HEADER = "Acp-Connection-Id";

export class Connection {
  readonly state: ConnectionStateStore;
  readonly index: SessionIndex;
  readonly #stubs = new Map<string, DurableObjectStub<SessionRpc>>();
  /** Frames are handled in arrival order; lost on hibernation, which only happens when idle. */
  readonly #inOrder = serialQueue();
  readonly #maxFrameBytes: number;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {
    this.state = new ConnectionStateStore(ctx.storage.sql);
    this.index = new SessionIndex(env.DB);
    this.#maxFrameBytes = maxFrameBytes(env);
  }

  get id(): string {
    return this.ctx.id.toString();
  }

  /** The Worker's authenticated upgrade: accept the socket with the hibernation API. */
  async accept(request: Request): Promise<Response> {
    const tenant = request.headers.get(TENANT_HEADER);
    if (!tenant || request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected an authenticated WebSocket upgrade", { status: 400 });
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    this.state.save({ tenant, initialized: false, protocolVersion: null, clientCapabilities: {}, sessions: [] });
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

  /** The socket closed or failed: attached sessions let this connection go. */
  async release(): Promise<void> {
    const state = this.state.get();
    if (!state) return;
    await Promise.allSettled(state.sessions.map((id) => this.session(id).detach(this.id)));
    this.state.clear();
  }

  /** The alarm: a connection made with a managed key closes once the key is revoked or expires. */
  checkKey(): Promise<void> {
    return checkKey(this.ctx, this.env.DB);
  }

  /** Frames from session objects; false when the socket is gone. */
  deliver(frames: string[]): boolean {
    const ws = this.#socket();
    if (!ws) return false;
    for (const frame of frames) ws.send(frame);
    return true;
  }

  send(frame: string): void {
    this.#socket()?.send(frame);
  }

  /** This connection as session objects see it. */
  ref(): ConnectionRef {
    const s = this.state.get()!;
    return { connectionId: this.id, tenant: s.tenant, clientCapabilities: s.clientCapabilities };
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

  rememberSession(sessionId: string): void {
    const s = this.state.get()!;
    if (!s.sessions.includes(sessionId)) this.state.update({ sessions: [...s.sessions, sessionId] });
  }

  forgetSession(sessionId: string): void {
    this.state.update({ sessions: this.state.get()!.sessions.filter((s) => s !== sessionId) });
  }

  #socket(): WebSocket | undefined {
    return this.ctx.getWebSockets().find((ws) => ws.readyState === WebSocket.OPEN);
  }
}
