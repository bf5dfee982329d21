/**
 * The reconnecting bridge between the editor's stdio (ndjson) and the
 * service's WebSocket (one JSON-RPC message per text frame). Frames are
 * forwarded as their original text; the reconnect tracker decides which
 * service frames were already delivered and which editor requests it can
 * answer. `logout` and the `authenticate` after it are the proxy's own.
 * @module
 */
import {
  AGENT_METHODS,
  decodeFrame,
  ErrorCode,
  errorFrame,
  ReconnectTracker,
  reattach,
  requestFrame,
  toErrorResponse,
  type ErrorResponse,
  type Frame,
  type IncomingRequest,
  type RequestId,
} from "@hermes-edge/protocol";
import type WebSocket from "ws";
import { backoffDelay } from "./backoff.js";
import { openSocket, type ConnectFailure } from "./connect.js";
import type { Credentials } from "./credentials.js";
import { EditorOutput } from "./editor-output.js";
import { connectFailureLog, loggedOutError, startupError, unauthorized, unreachableError } from "./failures.js";
import { LineDecoder, type DecodedLine } from "./line-framing.js";
import type { Logger } from "./log.js";
import { LoginState } from "./login-state.js";
import { Outbox } from "./outbox.js";
import { ProxyRequests } from "./proxy-requests.js";
import { closeGracefully, frameText, startHeartbeat } from "./socket-lifecycle.js";
import { StartupWatch } from "./startup-watch.js";
import { TurnEndedOptIn } from "./turn-ended-opt-in.js";

export interface BridgeOptions {
  readonly credentials: Credentials;
  readonly headers: Readonly<Record<string, string>>;
  readonly giveUpAfterMs: number;
  readonly log: Logger;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly cwd: string;
  readonly random?: () => number;
  /** How long an editor request waits for the very first connection (default {@link StartupWatch}'s). */
  readonly startupAnswerMs?: number;
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

type State = "idle" | "connecting" | "attaching" | "open" | "waiting" | "loggedOut" | "closed";

export class Bridge {
  readonly #o: BridgeOptions;
  readonly #tracker = new ReconnectTracker();
  readonly #outbox = new Outbox();
  readonly #proxyRequests = new ProxyRequests();
  readonly #decoder = new LineDecoder();
  readonly #editor: EditorOutput;
  readonly #startup: StartupWatch;
  readonly #turnEnded = new TurnEndedOptIn();
  readonly #login: LoginState;
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
    this.#startup = new StartupWatch(options.startupAnswerMs);
    this.#login = new LoginState(options.credentials, this.#editor, options.log);
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
    this.#startup.answered();
    await this.#disconnect("editor closed the connection");
    this.#exit(code);
  }

  /** A method, not a field read, so TypeScript does not carry narrowing across awaits. */
  #current(): State {
    return this.#state;
  }

  #onEditorLine(line: DecodedLine): void {
    if (this.#state === "closed") return;
    if (line.kind === "too_large") {
      this.#editor.write(errorFrame(null, { code: ErrorCode.invalidRequest, message: `Message exceeds ${line.maxBytes} bytes; dropped` }));
      return;
    }
    const decoded = decodeFrame(line.text);
    if (decoded.kind === "invalid") {
      this.#o.log.warn(`malformed frame from the editor (${decoded.error.message}); answered with ${decoded.error.code}`);
      this.#editor.write(errorFrame(decoded.id, toErrorResponse(decoded.error)));
      return;
    }
    this.#fromEditor(decoded, line.text);
    if (this.#state === "idle") this.#connectSoon(0);
  }

  #fromEditor(frame: Frame, text: string): void {
    if (frame.kind === "request") {
      this.#editorRequest(frame.message, text);
      return;
    }
    if (this.#state === "loggedOut") {
      this.#o.log.debug(`dropped a ${frame.kind} from the editor: logged out`);
      return;
    }
    // Responses answer the service's requests (permission, fs, terminal) and
    // may go out during re-attach; notifications keep their place in line.
    const canSend = frame.kind === "response" ? this.#socket !== undefined : this.#state === "open";
    if (canSend) this.#send(text);
    else if (this.#gaveUp && frame.kind === "notification") this.#o.log.debug(`dropped ${frame.message.method}: service unreachable`);
    else if (!this.#outbox.push({ kind: frame.kind, text })) this.#o.log.warn(`outbox full; dropped a ${frame.kind} from the editor`);
  }

  #editorRequest(message: IncomingRequest, text: string): void {
    const local = this.#login.answerLocally(message, this.#state === "loggedOut");
    if (local === "logout") return void this.#logout(message.id);
    if (local === "authenticate") return this.#authenticate(message.id);
    if (local === "answered") return;
    const open = this.#state === "open";
    if (this.#gaveUp && !open && this.#state !== "attaching") return this.#answerError(message.id, this.#unreachableError());
    if (!open && this.#outbox.isFull) {
      return this.#answerError(message.id, { code: ErrorCode.internalError, message: "Too many requests are waiting for the hermes-edge service to come back; try again later." });
    }
    if (message.method === AGENT_METHODS.initialize) ({ message, text } = this.#turnEnded.initialize(message));
    this.#tracker.clientRequest(message, text);
    if (open) this.#sendRequest(message.id, text);
    else {
      this.#outbox.push({ kind: "request", id: message.id, text });
      if (this.#startup.waiting) this.#startup.requestWaiting(() => this.#failStartup());
    }
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
    const { url, token } = this.#o.credentials.current;
    this.#o.log.debug(`connecting to ${url}`);
    const result = await openSocket({ url, token, headers: this.#o.headers, timeoutMs: HANDSHAKE_TIMEOUT_MS });
    if (this.#current() !== "connecting") {
      // Stopped or logged out meanwhile.
      if (result.ok) result.socket.close(1000);
      return;
    }
    if (result.ok) return this.#onOpen(result.socket, result.connectionId);
    if (this.#login.authenticating) {
      this.#state = "loggedOut";
      this.#clearTimers();
      this.#login.authenticateFailed(result, this.#o.credentials.current);
      this.#failWaiting(loggedOutError());
      return;
    }
    if (result.kind === "unauthorized") return this.#fatalUnauthorized(result);
    this.#logConnectFailure(result);
    if (this.#startup.failed(result)) this.#failStartup();
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
        this.#send(requestFrame(id, method, params));
        return response;
      },
      answer: (answers) => this.#editor.answer(answers),
      log: this.#o.log,
      cwd: this.#o.cwd,
    });
    // Prompts the service never received go out again first, on whichever
    // connection comes next if this one failed meanwhile.
    if (this.#current() !== "closed") this.#outbox.unshift(result.resend.map(({ id, text }) => ({ kind: "request" as const, id, text })));
    if (this.#socket !== socket || this.#current() === "closed") return;
    if (!result.ok) {
      this.#o.log.warn(`re-attach failed: ${result.reason}; reconnecting`);
      socket.terminate();
      return;
    }
    this.#state = "open";
    this.#gaveUp = false;
    this.#startup.reached();
    clearTimeout(this.#timers.giveUp);
    this.#timers.giveUp = undefined;
    this.#o.log.info(
      `connected to ${this.#o.credentials.current.url}${connectionId ? ` (connection ${connectionId})` : ""}` +
        (result.sessions > 0 ? `; re-attached ${result.sessions} session(s)` : ""),
    );
    this.#login.authenticated();
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
    const text = frameText(data);
    const frame = decodeFrame(text);
    if (frame.kind === "invalid") {
      this.#o.log.warn(`unparseable frame from the service dropped: ${frame.error.message}`);
      return;
    }
    if (frame.kind === "response" && frame.message.id !== null) {
      const { id, error, result } = frame.message;
      if (this.#proxyRequests.settle(id, error ? { kind: "error", error } : { kind: "result", result })) return;
    }
    const verdict = this.#tracker.fromService(frame);
    if (verdict.forward && this.#turnEnded.forward(frame)) this.#editor.write(text, socket);
    else this.#o.log.debug(`not forwarded: ${verdict.dropped ?? "the editor did not ask for _hermes/turn_ended"}`);
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
    if (this.#state === "open" || this.#state === "closed" || this.#state === "loggedOut") return;
    if (!this.#gaveUp) this.#o.log.error(`${this.#unreachableError().message}; failing pending requests`);
    this.#gaveUp = true;
    this.#failWaiting(this.#unreachableError());
  }

  /** Never connected yet, and the editor has waited long enough (or the cause will not go away): tell it why. */
  #failStartup(): void {
    this.#startup.answered();
    if (this.#state === "open" || this.#state === "closed" || this.#state === "loggedOut") return;
    const error = startupError(this.#o.credentials.current.url, this.#startup.lastFailure, this.#startup.waitedMs);
    this.#o.log.error(`${error.message} (answering the editor's waiting requests; still retrying)`);
    this.#failWaiting(error);
  }

  /** Answers every waiting editor request with `error` and drops what was queued for the service. */
  #failWaiting(error: ErrorResponse): void {
    this.#editor.answer(this.#tracker.failAll(error));
    const dropped = this.#outbox.drain().filter((item) => item.kind !== "request").length;
    if (dropped > 0) this.#o.log.warn(`dropped ${dropped} queued notification(s)/response(s) for the unreachable service`);
  }

  #unreachableError(): ErrorResponse {
    return unreachableError(this.#o.credentials.current.url, this.#unreachableSince);
  }

  #fatalUnauthorized(failure: ConnectFailure & { kind: "unauthorized" }): void {
    const { log, error } = unauthorized(failure, this.#o.credentials.current);
    this.#o.log.error(log);
    this.#editor.answer(this.#tracker.failAll(error));
    this.#outbox.drain();
    void this.stop(1);
  }

  /** `logout`: forget the saved token, close the service connection, answer `{}`; requests get -32000 until `authenticate`. */
  async #logout(id: RequestId): Promise<void> {
    const outcome = this.#login.logout();
    if ("error" in outcome) return this.#answerError(id, outcome.error);
    this.#state = "loggedOut";
    this.#failWaiting(outcome.failPending);
    this.#startup.answered();
    await this.#disconnect("logged out");
    this.#editor.answer([{ id, result: {} }]);
  }

  /** `authenticate` while logged out: read the credentials again and connect with them; answered once connected. */
  #authenticate(id: RequestId): void {
    if (!this.#login.startAuthenticate(id)) return;
    this.#unreachableSince = new Date();
    this.#attempt = 0;
    this.#gaveUp = false;
    this.#connectSoon(0);
  }

  /** Closes the socket (if any) quietly: its close is not an outage. */
  async #disconnect(reason: string): Promise<void> {
    this.#clearTimers();
    this.#stopHeartbeat();
    this.#proxyRequests.abandon(reason);
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) await closeGracefully(socket, reason);
  }

  #clearTimers(): void {
    for (const timer of Object.values(this.#timers)) clearTimeout(timer);
    this.#timers = {};
  }

  #answerError(id: RequestId, error: ErrorResponse): void {
    this.#editor.answer([{ id, error }]);
  }

  #logConnectFailure(failure: ConnectFailure): void {
    const message = connectFailureLog(failure, this.#o.credentials.current.url);
    if (this.#attempt === 0) this.#o.log.warn(message);
    else this.#o.log.debug(message);
  }

  #sendRequest(id: RequestId, text: string): void {
    this.#send(text);
    this.#tracker.clientSent(id, this.#connectionId);
  }

  #send(text: string): void {
    const socket = this.#socket;
    if (!socket || socket.readyState !== socket.OPEN) return;
    socket.send(text, (err) => {
      if (err) this.#o.log.debug(`send failed: ${err.message}`);
    });
  }
}
