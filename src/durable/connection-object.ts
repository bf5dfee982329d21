/**
 * One Durable Object per transport connection. It holds the hibernatable
 * WebSocket, hands each frame to `dispatchFrame`, and delivers what session
 * objects send. Its state lives in SQLite so hibernation loses nothing.
 */
import { DurableObject } from "cloudflare:workers";
import { maxFrameBytes } from "../config.js";
import type { ConnectionPorts } from "../connection/connection-ports.js";
import { ConnectionStateStore } from "../connection/connection-state.js";
import { dispatchFrame, serialQueue } from "../connection/dispatch.js";
import { SessionIndex } from "../db/session-index.js";
import type { Env } from "../env.js";
import { checkKey, watchKey } from "../keys/key-watch.js";
import type { SessionObject } from "./session-object.js";

/** Internal headers the Worker sets after authenticating; clients never reach this object directly. */
export const TENANT_HEADER = "X-Hermes-Tenant";
export const PROTOCOL_HEADER = "X-Hermes-Protocol";
export const CONNECTION_ID_HEADER = "Acp-Connection-Id";

export class ConnectionObject extends DurableObject<Env> {
  readonly #state: ConnectionStateStore;
  readonly #stubs = new Map<string, DurableObjectStub<SessionObject>>();
  readonly #ports: ConnectionPorts;
  /** Frames are handled in arrival order; lost on hibernation, which only happens when idle. */
  readonly #inOrder = serialQueue();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#state = new ConnectionStateStore(ctx.storage.sql);
    this.#ports = {
      state: this.#state,
      index: new SessionIndex(env.DB),
      session: (id) => this.#stub(id),
      ref: () => {
        const s = this.#state.get()!;
        return { connectionId: this.ctx.id.toString(), tenant: s.tenant, clientCapabilities: s.clientCapabilities };
      },
      rememberSession: (id) => {
        const s = this.#state.get()!;
        if (!s.sessions.includes(id)) this.#state.update({ sessions: [...s.sessions, id] });
      },
      forgetSession: (id) => this.#state.update({ sessions: this.#state.get()!.sessions.filter((s) => s !== id) }),
      send: (frame) => this.#socket()?.send(frame),
    };
  }

  override async fetch(request: Request): Promise<Response> {
    const tenant = request.headers.get(TENANT_HEADER);
    if (!tenant || request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected an authenticated WebSocket upgrade", { status: 400 });
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    this.#state.save({ tenant, initialized: false, protocolVersion: null, clientCapabilities: {}, sessions: [] });
    await watchKey(this.ctx, request);
    const headers = new Headers({ [CONNECTION_ID_HEADER]: this.ctx.id.toString() });
    const protocol = request.headers.get(PROTOCOL_HEADER);
    if (protocol) headers.set("Sec-WebSocket-Protocol", protocol);
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") {
      ws.close(1003, "binary frames are not supported: send one JSON-RPC message per text frame");
      return;
    }
    await dispatchFrame(message, this.#ports, maxFrameBytes(this.env), this.#inOrder);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    await this.#release();
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  override async webSocketError(): Promise<void> {
    await this.#release();
  }

  /** Closes the socket with 4401 once its managed key is revoked (src/keys/key-watch.ts). */
  override async alarm(): Promise<void> {
    await checkKey(this.ctx, this.env.DB);
  }

  /** Session objects push frames here; false tells them this connection is gone. */
  deliver(frames: string[]): boolean {
    const ws = this.#socket();
    if (!ws) return false;
    for (const frame of frames) ws.send(frame);
    return true;
  }

  #socket(): WebSocket | undefined {
    return this.ctx.getWebSockets().find((ws) => ws.readyState === WebSocket.OPEN);
  }

  #stub(sessionId: string): DurableObjectStub<SessionObject> {
    let stub = this.#stubs.get(sessionId);
    if (!stub) {
      // One stub per session keeps calls to it in the order they were made.
      stub = this.env.SESSION.get(this.env.SESSION.idFromName(sessionId));
      this.#stubs.set(sessionId, stub);
    }
    return stub;
  }

  async #release(): Promise<void> {
    const state = this.#state.get();
    if (!state) return;
    const connectionId = this.ctx.id.toString();
    await Promise.allSettled(state.sessions.map((id) => this.#stub(id).detach(connectionId)));
    this.#state.clear();
  }
}
