/**
 * The reconnecting bridge between the editor's stdio (ndjson) and the
 * service's WebSocket (one JSON-RPC message per text frame). Frames are
 * forwarded as their original text; the session tracker decides which service
 * frames were already delivered and which editor requests it can answer.
 * @module
 */
import type WebSocket from "ws";
import { backoffDelay } from "./backoff.js";
import { openSocket, type ConnectFailure } from "./connect.js";
import type { ValueSource } from "./config.js";
import { EditorOutput } from "./editor-output.js";
import { connectFailureLog, unauthorized, unreachableError } from "./failures.js";
import { ErrorCode, errorResponse, parseFrame, requestText, type Frame, type JsonRpcError, type JsonRpcId } from "./jsonrpc.js";
import { LineDecoder, type DecodedLine } from "./line-framing.js";
import type { Logger } from "./log.js";
import { Outbox } from "./outbox.js";
import { ProxyRequests } from "./proxy-requests.js";
import { reattach } from "./reattach.js";
import { SessionTracker } from "./session-tracker.js";
import { closeGracefully, frameText, startHeartbeat } from "./socket-lifecycle.js";

export interface BridgeOptions {
  readonly url: string;
  readonly token: string | undefined;
  readonly tokenSource: ValueSource;
  readonly configPath: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly giveUpAfterMs: number;
  readonly log: Logger;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly cwd: string;
  readonly random?: () => number;
  /**
   * Test hook, off when undefined: terminate the WebSocket (no close frame, as
   * a network failure would) right after this many frames have arrived from
   * the service, counted from startup; once per process. The CLI reads it from
   * `HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES`.
   */
  readonly testDropAfterFrames?: number;
}

const HANDSHAKE_TIMEOUT_MS = 15_000;
const PROXY_REQUEST_TIMEOUT_MS = 30_000;
const HEARTBEAT_MS = 30_000;
/** A connection that lived this long was healthy: the next outage starts backoff afresh. */
const STABLE_MS = 10_000;

type State = "idle" | "connecting" | "attaching" | "open" | "waiting" | "closed";

export class Bridge {
  readonly #o: BridgeOptions;
  readonly #tracker = new SessionTracker();
  readonly #outbox = new Outbox();
  readonly #proxyRequests = new ProxyRequests();
  readonly #decoder = new LineDecoder();
  readonly #editor: EditorOutput;
  #state: State = "idle";
  #socket: WebSocket | undefined;
  #connectionId: string | null = null;
  #openedAt = 0;
  #attempt = 0;
  #unreachableSince = new Date();
  #gaveUp = false;
  #timers: { retry?: NodeJS.Timeout; giveUp?: NodeJS.Timeout } = {};
  #stopHeartbeat: () => void = () => undefined;
  #exit: (code: number) => void = () => undefined;
  /** Frames received from the service so far, for {@link BridgeOptions.testDropAfterFrames}. */
  #framesReceived = 0;

  constructor(options: BridgeOptions) {
    this.#o = options;
    this.#editor = new EditorOutput(options.output, options.log);
  }

  /** Runs until stdin ends, a signal arrives or the token is refused; resolves with the exit code. */
  run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.#exit = resolve));
    const { input, output } = this.#o;
    input.on("data", (chunk: Buffer | string) => {
      for (const line of this.#decoder.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) this.#onEditorLine(line);
    });
    input.on("end", () => {
      for (const line of this.#decoder.end()) this.#onEditorLine(line);
      this.#o.log.info("stdin closed by the editor; shutting down");
      void this.stop(0);
    });
    output.on("error", (err: Error) => {
      // EPIPE: the editor is gone. Nothing can be delivered any more.
      this.#o.log.warn(`stdout failed (${err.message}); shutting down`);
      void this.stop(0);
    });
    return done;
  }

  /** Closes the socket with 1000 and resolves `run()` with `code`. */
  async stop(code: number): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    for (const timer of Object.values(this.#timers)) clearTimeout(timer);
    this.#stopHeartbeat();
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) await closeGracefully(socket, "editor closed the connection");
    this.#exit(code);
  }

  /** A method, not a field read, so TypeScript does not carry narrowing across awaits. */
  #stopped(): boolean {
    return this.#state === "closed";
  }

  #onEditorLine(line: DecodedLine): void {
    if (this.#state === "closed") return;
    if (line.kind === "too_large") {
      this.#editor.write(errorResponse(null, { code: ErrorCode.invalidRequest, message: `Message exceeds ${line.maxBytes} bytes; dropped` }));
      return;
    }
    const parsed = parseFrame(line.text);
    if (!parsed.ok) {
      this.#o.log.warn(`malformed frame from the editor (${parsed.error.message}); answered with ${parsed.error.code}`);
      this.#editor.write(errorResponse(parsed.id, parsed.error));
      return;
    }
    this.#fromEditor(parsed.frame);
    if (this.#state === "idle") this.#connectSoon(0);
  }

  #fromEditor(frame: Frame): void {
    const open = this.#state === "open";
    if (frame.kind === "request") {
      if (this.#gaveUp && !open && this.#state !== "attaching") {
        this.#editor.write(errorResponse(frame.id, this.#unreachableError()));
        return;
      }
      if (!open && this.#outbox.isFull) {
        this.#editor.write(errorResponse(frame.id, { code: ErrorCode.internalError, message: "Too many requests are waiting for the hermes-edge service to come back; try again later." }));
        return;
      }
      this.#tracker.editorRequest(frame);
      if (open) this.#sendRequest(frame.id, frame.text);
      else this.#outbox.push({ kind: "request", id: frame.id, text: frame.text });
      return;
    }
    // Responses answer the service's requests (permission, fs, terminal) and
    // may go out during re-attach; notifications keep their place in line.
    const canSend = frame.kind === "response" ? this.#socket !== undefined : open;
    if (canSend) this.#send(frame.text);
    else if (this.#gaveUp && frame.kind === "notification") this.#o.log.debug(`dropped ${frame.method}: service unreachable`);
    else if (!this.#outbox.push({ kind: frame.kind, text: frame.text })) this.#o.log.warn(`outbox full; dropped a ${frame.kind} from the editor`);
  }

  #connectSoon(delayMs: number): void {
    this.#state = "waiting";
    this.#timers.retry = setTimeout(() => {
      this.#connect().catch((err: unknown) => {
        // A bug, not an outage: log it and keep the proxy alive by retrying.
        this.#o.log.error(`unexpected error while connecting: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.#socket?.terminate();
        if (this.#state === "connecting") this.#scheduleReconnect();
      });
    }, delayMs);
  }

  async #connect(): Promise<void> {
    this.#state = "connecting";
    this.#armGiveUp();
    this.#o.log.debug(`connecting to ${this.#o.url}`);
    const result = await openSocket({ url: this.#o.url, token: this.#o.token, headers: this.#o.headers, timeoutMs: HANDSHAKE_TIMEOUT_MS });
    if (this.#stopped()) {
      if (result.ok) result.socket.close(1000);
      return;
    }
    if (result.ok) {
      await this.#onOpen(result.socket, result.connectionId);
      return;
    }
    if (result.kind === "unauthorized") {
      this.#fatalUnauthorized(result);
      return;
    }
    this.#logConnectFailure(result);
    this.#scheduleReconnect();
  }

  async #onOpen(socket: WebSocket, connectionId: string | null): Promise<void> {
    this.#socket = socket;
    this.#connectionId = connectionId;
    this.#openedAt = Date.now();
    this.#state = "attaching";
    this.#tracker.connected(connectionId);
    socket.on("message", (data, isBinary) => this.#onServiceMessage(socket, data, isBinary));
    socket.on("close", (code, reason) => this.#onClose(socket, code, reason.toString()));
    this.#stopHeartbeat();
    this.#stopHeartbeat = startHeartbeat(socket, HEARTBEAT_MS, () => this.#o.log.warn("no pong from the service; dropping the connection"));

    const result = await reattach(this.#tracker, {
      request: (method, params) => {
        const { id, response } = this.#proxyRequests.start(PROXY_REQUEST_TIMEOUT_MS);
        this.#send(requestText(id, method, params));
        return response;
      },
      answer: (answers) => this.#editor.answer(answers),
      log: this.#o.log,
      cwd: this.#o.cwd,
    });
    // Prompts the service never received go out again first, on whichever
    // connection comes next if this one failed meanwhile.
    if (!this.#stopped()) this.#outbox.unshift(result.resend.map(({ id, text }) => ({ kind: "request" as const, id, text })));
    if (this.#socket !== socket || this.#stopped()) return;
    if (!result.ok) {
      this.#o.log.warn(`re-attach failed: ${result.reason}; reconnecting`);
      socket.terminate();
      return;
    }
    this.#state = "open";
    this.#gaveUp = false;
    clearTimeout(this.#timers.giveUp);
    this.#timers.giveUp = undefined;
    this.#o.log.info(
      `connected to ${this.#o.url}${connectionId ? ` (connection ${connectionId})` : ""}` +
        (result.sessions > 0 ? `; re-attached ${result.sessions} session(s)` : ""),
    );
    for (const item of this.#outbox.drain()) {
      if (item.kind === "request") this.#sendRequest(item.id, item.text);
      else this.#send(item.text);
    }
  }

  #onServiceMessage(socket: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#socket !== socket) return;
    this.#handleServiceMessage(socket, data, isBinary);
    this.#framesReceived += 1;
    if (this.#framesReceived === this.#o.testDropAfterFrames && this.#socket === socket) {
      this.#o.log.warn(`test hook: dropping the connection after ${this.#framesReceived} frames from the service (HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES)`);
      socket.terminate();
    }
  }

  #handleServiceMessage(socket: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.#o.log.warn("binary frame from the service ignored (ACP frames are text)");
      return;
    }
    const parsed = parseFrame(frameText(data));
    if (!parsed.ok) {
      this.#o.log.warn(`unparseable frame from the service dropped: ${parsed.error.message}`);
      return;
    }
    const frame = parsed.frame;
    if (frame.kind === "response" && frame.id !== null) {
      const settled = frame.error ? { kind: "error" as const, error: frame.error } : { kind: "result" as const, result: frame.result };
      if (this.#proxyRequests.settle(frame.id, settled)) return;
    }
    const verdict = this.#tracker.fromService(frame);
    if (verdict.forward) this.#editor.write(frame.text, socket);
    else if (verdict.dropped) this.#o.log.debug(`not forwarded: ${verdict.dropped}`);
    this.#editor.answer(verdict.answers);
  }

  #onClose(socket: WebSocket, code: number, reason: string): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    this.#stopHeartbeat();
    this.#proxyRequests.abandon("the connection closed");
    if (this.#state === "closed") return;
    const lived = Date.now() - this.#openedAt;
    if (lived >= STABLE_MS) this.#attempt = 0;
    if (this.#state === "open") this.#unreachableSince = new Date();
    this.#o.log.warn(`connection to the service closed (code ${code}${reason ? `, ${reason}` : ""}); reconnecting`);
    const { answers, resend } = this.#tracker.disconnected();
    this.#editor.answer(answers);
    this.#outbox.unshift(resend.map(({ id, text }) => ({ kind: "request" as const, id, text })));
    if (this.#gaveUp) this.#giveUp();
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    this.#state = "waiting";
    const delay = backoffDelay(this.#attempt, this.#o.random ?? Math.random);
    this.#attempt += 1;
    this.#o.log.debug(`reconnect attempt ${this.#attempt} in ${delay} ms`);
    this.#connectSoon(delay);
    this.#armGiveUp();
  }

  /** Counts --give-up-after from the moment the connection was lost (or the proxy started). */
  #armGiveUp(): void {
    if (this.#gaveUp || this.#timers.giveUp !== undefined) return;
    const remaining = this.#o.giveUpAfterMs - (Date.now() - this.#unreachableSince.getTime());
    this.#timers.giveUp = setTimeout(() => this.#giveUp(), Math.max(0, remaining));
  }

  /** Past --give-up-after: fail what waits, answer new requests at once, keep retrying. */
  #giveUp(): void {
    this.#timers.giveUp = undefined;
    if (this.#state === "open" || this.#state === "closed") return;
    if (!this.#gaveUp) this.#o.log.error(`${this.#unreachableError().message}; failing pending requests`);
    this.#gaveUp = true;
    this.#editor.answer(this.#tracker.failAll(this.#unreachableError()));
    const dropped = this.#outbox.drain().filter((item) => item.kind !== "request").length;
    if (dropped > 0) this.#o.log.warn(`dropped ${dropped} queued notification(s)/response(s) for the unreachable service`);
  }

  #unreachableError(): JsonRpcError {
    return unreachableError(this.#o.url, this.#unreachableSince);
  }

  #fatalUnauthorized(failure: ConnectFailure & { kind: "unauthorized" }): void {
    const { log, error } = unauthorized(failure, this.#o);
    this.#o.log.error(log);
    this.#editor.answer(this.#tracker.failAll(error));
    this.#outbox.drain();
    void this.stop(1);
  }

  #logConnectFailure(failure: ConnectFailure): void {
    const message = connectFailureLog(failure, this.#o.url);
    if (this.#attempt === 0) this.#o.log.warn(message);
    else this.#o.log.debug(message);
  }

  #sendRequest(id: JsonRpcId, text: string): void {
    this.#send(text);
    this.#tracker.editorSent(id, this.#connectionId);
  }

  #send(text: string): void {
    const socket = this.#socket;
    if (!socket || socket.readyState !== socket.OPEN) return;
    socket.send(text, (err) => {
      if (err) this.#o.log.debug(`send failed: ${err.message}`);
    });
  }
}
