/**
 * One Durable Object per transport connection. WebSocket handlers, Streamable
 * HTTP requests and RPC only: each is one call into `Connection`, which holds the socket's state
 * and dispatches its frames. Session objects reach it through `ConnectionRpc`.
 */
import { DurableObject } from "cloudflare:workers";
import { Connection } from "../connection/connection.js";
import type { ConnectionRpc } from "../connection/connection-rpc.js";
import type { Env } from "../env.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { errorResponse } from "../http/http-error.js";
import { ensureHttpLink, handleHttp, httpWatch } from "../http-stream/http-transport.js";
import { guarded, type EntryContext } from "./entry-point.js";

export class ConnectionObject extends DurableObject<Env> implements ConnectionRpc {
  readonly #connection: Connection;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#connection = new Connection(ctx, env);
  }

  override async fetch(request: Request): Promise<Response> {
    // The one JSON error shape of every route (logged with its cause by `guarded`).
    const failed = errorResponse({ code: ErrorCode.internalError, message: "the connection could not be set up" }, { expose: true });
    const upgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
    return guarded(this.#where("fetch"), failed, () => (upgrade ? this.#connection.accept(request) : handleHttp(this.#connection, request)));
  }

  override async webSocketMessage(_ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await guarded(this.#where("webSocketMessage"), undefined, () => this.#connection.receive(message));
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      await guarded(this.#where("webSocketClose"), undefined, () => this.#connection.release());
    } finally {
      // 1005 (no status) and 1006 (abnormal) describe the peer's side; they are never sent back.
      closeQuietly(ws, code === 1005 || code === 1006 ? 1000 : code);
    }
  }

  override async webSocketError(): Promise<void> {
    await guarded(this.#where("webSocketError"), undefined, () => this.#connection.release());
  }

  /** Closes the socket (or ends the SSE streams) once its managed key or link is revoked (src/keys/key-watch.ts). */
  override async alarm(): Promise<void> {
    await guarded(this.#where("alarm"), undefined, () => this.#connection.checkKey(httpWatch(this.#connection)));
  }

  deliver(frames: string[]): Promise<boolean> {
    return guarded(this.#where("deliver"), false, () => {
      ensureHttpLink(this.#connection);
      return this.#connection.deliver(frames);
    });
  }

  #where(method: string): EntryContext {
    return { class: "ConnectionObject", method, connectionId: this.#connection.id };
  }
}

function closeQuietly(ws: WebSocket, code: number): void {
  try {
    ws.close(code, "closing");
  } catch {
    // already closed
  }
}
