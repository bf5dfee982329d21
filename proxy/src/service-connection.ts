/**
 * One open WebSocket to the service: sends frames, keeps it alive with pings,
 * routes the answers to the proxy's own requests (replayed `initialize`,
 * re-attaching `session/resume`) and hands every other frame to the bridge.
 * A new one is made for each connection; a closed one is never reused.
 * @module
 */
import { decodeFrame, OwnRequests, requestFrame, type Frame, type ServiceResponse } from "@hermes-edge/protocol";
import type WebSocket from "ws";
import type { Pausable } from "./editor-output.js";
import type { Logger } from "./log.js";
import { closeGracefully, frameText, startHeartbeat } from "./socket-lifecycle.js";

const PROXY_REQUEST_TIMEOUT_MS = 30_000;
const HEARTBEAT_MS = 30_000;

export interface ServiceConnectionEvents {
  /** A frame from the service that is not an answer to the proxy's own requests. */
  frame(frame: Frame, text: string): void;
  /** The socket closed, whatever the reason; not called after {@link ServiceConnection.close}. */
  closed(code: number, reason: string): void;
}

/**
 * Test hook shared by every connection of a process: terminate the socket (no
 * close frame, as a network failure would) right after the N-th frame from
 * the service, counted from startup; once. The CLI reads N from
 * `HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES`.
 */
export interface DropAfterFrames {
  readonly after: number | undefined;
  received: number;
}

export class ServiceConnection implements Pausable {
  readonly #socket: WebSocket;
  readonly #log: Logger;
  readonly #requests = new OwnRequests("hermes-proxy");
  readonly #stopHeartbeat: () => void;
  #open = true;
  /** The test hook cut the socket: nothing more is taken from it. */
  #dropped = false;

  constructor(socket: WebSocket, log: Logger, events: ServiceConnectionEvents, drop: DropAfterFrames) {
    this.#socket = socket;
    this.#log = log;
    socket.on("message", (data, isBinary) => {
      if (!this.#open || this.#dropped) return;
      this.#receive(data, isBinary, events);
      drop.received += 1;
      if (drop.received === drop.after && this.#open) {
        log.warn(`test hook: dropping the connection after ${drop.received} frames from the service (HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES)`);
        // Frames that came in the same read are still emitted after the terminate: they are lost, as the cut says.
        this.#dropped = true;
        socket.terminate();
      }
    });
    socket.on("close", (code, reason) => {
      if (!this.#shut("the connection closed")) return;
      events.closed(code, reason.toString());
    });
    this.#stopHeartbeat = startHeartbeat(socket, HEARTBEAT_MS, () => log.warn("no pong from the service; dropping the connection"));
  }

  /** Sends one of the proxy's own requests and waits for its answer (or its loss). */
  request(method: string, params: unknown): Promise<ServiceResponse> {
    const { id, response } = this.#requests.start(PROXY_REQUEST_TIMEOUT_MS);
    this.send(requestFrame(id, method, params));
    return response;
  }

  send(text: string): void {
    if (!this.#open || this.#socket.readyState !== this.#socket.OPEN) return;
    this.#socket.send(text, (err) => {
      if (err) this.#log.debug(`send failed: ${err.message}`);
    });
  }

  pause(): void {
    this.#socket.pause();
  }

  resume(): void {
    this.#socket.resume();
  }

  /** Drops the socket as a network failure would; `closed` follows. */
  terminate(): void {
    this.#socket.terminate();
  }

  /** Closes with 1000, quietly: `closed` is not called. */
  async close(reason: string): Promise<void> {
    if (!this.#shut(reason)) return;
    await closeGracefully(this.#socket, reason);
  }

  /** Marks the connection finished; false when it already was. */
  #shut(reason: string): boolean {
    if (!this.#open) return false;
    this.#open = false;
    this.#stopHeartbeat();
    this.#requests.abandon(reason);
    return true;
  }

  #receive(data: WebSocket.RawData, isBinary: boolean, events: ServiceConnectionEvents): void {
    if (isBinary) {
      this.#log.warn("binary frame from the service ignored (ACP frames are text)");
      return;
    }
    const text = frameText(data);
    const frame = decodeFrame(text);
    if (frame.kind === "invalid") {
      this.#log.warn(`unparseable frame from the service dropped: ${frame.error.message}`);
      return;
    }
    if (frame.kind === "response" && frame.message.id !== null) {
      const { id, error, result } = frame.message;
      if (this.#requests.settle(id, error ? { kind: "error", error } : { kind: "result", result })) return;
    }
    events.frame(frame, text);
  }
}
