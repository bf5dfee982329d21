/**
 * The reconnecting bridge between the editor's stdio (ndjson) and the
 * service's WebSocket (one JSON-RPC message per text frame). Frames are
 * forwarded as their original text; the reconnect tracker decides which
 * service frames were already delivered and which editor requests it can
 * answer. `logout` and the `authenticate` after it are the proxy's own.
 * @module
 */
import { AGENT_METHODS, attributeOversize, backoffDelay, frameLimitRefusal, initializeResult, mcpCallTimeouts, OversizeLedger, ReconnectTracker, reattach, ServiceRequests, UPSTREAM_MESSAGE } from "@hermes-edge/protocol";
import type { ClientAnswer, ErrorResponse, Frame, IncomingRequest, JsonRpcId, RequestId } from "@hermes-edge/protocol";
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import type WebSocket from "ws";
import { openSocket, type ConnectFailure } from "./connect.js";
import type { Credentials } from "./credentials.js";
import { readEditor } from "./editor-input.js";
import { EditorOutput } from "./editor-output.js";
import { connectFailureLog, loggedOutError, outboxFullError, startupError, unauthorized } from "./failures.js";
import type { Logger } from "./log.js";
import { LoginState } from "./login-state.js";
import { Outage } from "./outage.js";
import { Outbox } from "./outbox.js";
import { ServiceConnection, type DropAfterFrames } from "./service-connection.js";
import { StdinEnd } from "./stdin-end.js";
import { StdioMcpHost } from "./stdio-mcp-host.js";
import { TurnEndedOptIn } from "./turn-ended-opt-in.js";
import type { UpstreamHost } from "./upstream-host.js";
import { PACKAGE_VERSION } from "./version.js";

export interface BridgeOptions {
  readonly credentials: Credentials;
  readonly headers: Readonly<Record<string, string>>;
  readonly giveUpAfterMs: number;
  readonly log: Logger;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly cwd: string;
  readonly random?: () => number;
  /** How long an editor request waits for the very first connection (default `STARTUP_ANSWER_MS`). */
  readonly startupAnswerMs?: number;
  /** Test hook, off when undefined: see {@link DropAfterFrames}. */
  readonly testDropAfterFrames?: number | undefined;
  /** The stdio MCP servers' call timeout without progress (`mcpCallTimeouts`); tests shorten it. */
  readonly mcpCallTimeoutMs?: number | undefined;
  /** Local ACP agents tunnelled to the service (`--upstream`). */
  readonly upstreams?: UpstreamHost;
}

const HANDSHAKE_TIMEOUT_MS = 15_000;
/** A connection that lived this long was healthy: the next outage starts backoff afresh. */
const STABLE_MS = 10_000;

type State = "idle" | "connecting" | "attaching" | "open" | "waiting" | "loggedOut" | "closed";

export class Bridge {
  readonly #o: BridgeOptions;
  readonly #tracker = new ReconnectTracker();
  /** Pins the service's `id: null` frame-limit errors on the editor request they refused. */
  readonly #oversize = new OversizeLedger();
  /** The service's requests handed to the editor: a copy re-sent after a reconnect is not handed on again. */
  readonly #serviceRequests = new ServiceRequests();
  readonly #outbox = new Outbox();
  readonly #editor: EditorOutput;
  readonly #outage: Outage;
  readonly #turnEnded = new TurnEndedOptIn();
  readonly #login: LoginState;
  /** The editor's stdio MCP servers, run here for the agent. */
  readonly mcp: StdioMcpHost;
  #state: State = "idle";
  #link: ServiceConnection | undefined;
  #connectionId: string | null = null;
  #openedAt = 0;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  #exit: (code: number) => void = () => undefined;
  readonly #stdinEnd: StdinEnd;
  readonly #drop: DropAfterFrames;

  constructor(options: BridgeOptions) {
    this.#o = options;
    this.#editor = new EditorOutput(options.output, options.log);
    this.#outage = new Outage(options.giveUpAfterMs, options.startupAnswerMs);
    this.#login = new LoginState(options.credentials, this.#editor, options.log);
    this.#drop = { after: options.testDropAfterFrames, received: 0 };
    this.mcp = new StdioMcpHost(options.log, (text) => this.#link?.send(text), mcpCallTimeouts(options.mcpCallTimeoutMs));
    this.#stdinEnd = new StdinEnd(options.log, () => this.#tracker.pendingCount, () => void this.stop(0));
  }

  /** Runs until stdin ends, a signal arrives or the token is refused; resolves with the exit code. */
  run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.#exit = resolve));
    readEditor(this.#o.input, this.#editor, this.#o.log, {
      frame: (frame, text) => {
        if (this.#state === "closed") return;
        this.#fromEditor(frame, text);
        if (this.#state === "idle") this.#connectSoon(0);
      },
      end: () => this.#stdinEnd.ended(),
    });
    this.#o.output.on("error", (err: Error) => {
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
    this.#stdinEnd.cancel();
    this.#o.upstreams?.stop();
    await Promise.all([this.#disconnect("editor closed the connection"), this.mcp.closeAll()]);
    this.#exit(code);
  }

  /** A method, not a field read, so TypeScript does not carry narrowing across awaits. */
  #current(): State {
    return this.#state;
  }

  #fromEditor(frame: Frame, text: string): void {
    if (frame.kind === "request") return this.#editorRequest(frame.message, text);
    if (frame.kind === "response") return this.#editorResponse(frame.message.id, text);
    if (this.#state === "loggedOut") this.#o.log.debug(`dropped ${frame.message.method} from the editor: logged out`);
    else if (this.#state === "open") this.#link?.send(text);
    else if (this.#outage.gaveUp) this.#o.log.debug(`dropped ${frame.message.method}: service unreachable`);
    else if (!this.#outbox.push({ kind: "notification", text })) this.#o.log.warn("outbox full; dropped a notification from the editor");
  }

  /**
   * An answer to the service's request (permission, fs, terminal) goes out
   * only on an attached connection: the service ignores answers before the
   * re-attach, and re-sends the request then, which `ServiceRequests` holds
   * back as a repeat. So it waits, through give-up and logout too.
   */
  #editorResponse(id: JsonRpcId, text: string): void {
    if (id !== null) this.#serviceRequests.answered(id, text);
    if (this.#state === "open") this.#sendResponse(id, text);
    else if (!this.#outbox.push({ kind: "response", id, text })) this.#o.log.warn("outbox full; dropped an answer from the editor");
  }

  #editorRequest(message: IncomingRequest, text: string): void {
    if (this.#state === "idle" && message.method === AGENT_METHODS.initialize && needsSetup(this.#o.credentials.current.tokenSource, message.params)) {
      // First run: no token anywhere. 401 and exit would hide the setup method; the editor gets it, and -32000 for the rest.
      this.#o.log.warn("no token is configured: the editor is offered the \"Configure hermes-edge\" terminal method (hermes-edge-proxy --setup); requests get -32000 until it authenticates");
      this.#state = "loggedOut";
      this.#login.notConfigured();
    }
    const local = this.#login.answerLocally(message, this.#state === "loggedOut");
    if (local === "logout") return void this.#logout(message.id);
    if (local === "authenticate") return this.#authenticate(message.id);
    if (local === "initialize") return this.#initializeLocally(message);
    if (local === "answered") return;
    const open = this.#state === "open";
    if (this.#outage.gaveUp && !open && this.#state !== "attaching") return this.#answerError(message.id, this.#unreachableError());
    if (!open && this.#outbox.isFull) return this.#answerError(message.id, outboxFullError());
    if (message.method === AGENT_METHODS.initialize) ({ message, text } = this.#turnEnded.initialize(message));
    if (message.method === AGENT_METHODS.initialize) ({ message, text } = this.#o.upstreams?.initialize(message) ?? { message, text });
    // Before the tracker: a re-attach after a reconnect declares the rewritten `acp` entries again.
    ({ message, text } = this.mcp.fromEditor(message, text));
    this.#tracker.clientRequest(message, text);
    if (open) this.#sendRequest(message.id, text);
    else {
      this.#outbox.push({ kind: "request", id: message.id, text });
      if (this.#outage.startup.waiting) this.#outage.startup.requestWaiting(() => this.#failStartup());
    }
  }

  #connectSoon(delayMs: number): void {
    this.#state = "waiting";
    this.#retry = setTimeout(() => {
      this.#connect().catch((err: unknown) => {
        // A bug, not an outage: log it and keep the proxy alive by retrying.
        this.#o.log.error(`unexpected error while connecting: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.#link?.terminate();
        if (this.#state === "connecting") this.#scheduleReconnect();
      });
    }, delayMs);
  }

  async #connect(): Promise<void> {
    this.#state = "connecting";
    this.#outage.arm(() => this.#giveUp());
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
      this.#stopTimers();
      this.#login.authenticateFailed(result, this.#o.credentials.current);
      this.#failWaiting(loggedOutError());
      return;
    }
    if (result.kind === "unauthorized") return this.#fatalUnauthorized(result);
    const message = connectFailureLog(result, url);
    if (this.#attempt === 0) this.#o.log.warn(message);
    else this.#o.log.debug(message);
    if (this.#outage.startup.failed(result)) this.#failStartup();
    this.#scheduleReconnect();
  }

  async #onOpen(socket: WebSocket, connectionId: string | null): Promise<void> {
    const link = new ServiceConnection(socket, this.#o.log, { frame: (f, text) => this.#fromService(link, f, text), closed: (code, reason) => this.#onClose(link, code, reason) }, this.#drop);
    this.#link = link;
    this.#connectionId = connectionId;
    this.#openedAt = Date.now();
    this.#state = "attaching";
    this.#tracker.connected(connectionId);

    const result = await reattach(this.#tracker, {
      request: (method, params) => link.request(method, params),
      answer: (answers) => this.#answerEditor(answers),
      log: this.#o.log,
      cwd: this.#o.cwd,
    });
    // Prompts the service never received go out again first, on whichever
    // connection comes next if this one failed meanwhile.
    // Not those that give-up or logout answered meanwhile.
    const resend = result.resend.filter(({ id }) => this.#tracker.isPending(id));
    if (this.#current() !== "closed") this.#outbox.unshift(resend.map(({ id, text }) => ({ kind: "request" as const, id, text })));
    if (this.#link !== link || this.#current() === "closed") return;
    if (!result.ok) {
      this.#o.log.warn(`re-attach failed: ${result.reason}; reconnecting`);
      link.terminate();
      return;
    }
    this.#state = "open";
    this.#serviceRequests.reopened(Date.now());
    this.#outage.ended();
    this.#o.log.info(
      `connected to ${this.#o.credentials.current.url}${connectionId ? ` (connection ${connectionId})` : ""}` +
        (result.sessions > 0 ? `; re-attached ${result.sessions} session(s)` : ""),
    );
    this.#login.authenticated();
    this.#o.upstreams?.online((text) => link.send(text));
    for (const item of this.#outbox.drain()) {
      if (item.kind === "request") this.#sendRequest(item.id, item.text);
      else if (item.kind === "response") this.#sendResponse(item.id, item.text);
      else link.send(item.text);
    }
  }

  #fromService(link: ServiceConnection, frame: Frame, text: string): void {
    if (this.#link !== link) return;
    if (frame.kind === "notification" && frame.message.method === UPSTREAM_MESSAGE) return this.#o.upstreams?.fromService(frame.message.params);
    if (this.mcp.fromService(frame)) return;
    if (frame.kind === "response" && frame.message.id !== null) this.#oversize.answered(frame.message.id);
    const attributed = attributeOversize(frame, this.#oversize);
    if (attributed !== frame) [frame, text] = [attributed, JSON.stringify(attributed.message)];
    // A refused frame of an upstream agent's is the proxy's to settle; the editor never sent it.
    const refusal = frameLimitRefusal(frame);
    if (refusal && this.#o.upstreams?.refused(refusal)) return;
    if (frame.kind === "request") {
      // After a re-attach the service sends its unanswered requests again; the editor already has them.
      const arrival = this.#serviceRequests.arrived(frame.message.id, Date.now(), this.#state === "open");
      if (arrival.kind === "answer-again") this.#editorResponse(frame.message.id, arrival.text);
      if (arrival.kind !== "new") return this.#o.log.debug(`not forwarded: request ${JSON.stringify(frame.message.id)} is one the editor has already`);
    } else if (frame.kind === "notification") this.#serviceRequests.notified(frame.message);
    const verdict = this.#tracker.fromService(frame);
    if (verdict.forward && this.#turnEnded.forward(frame)) this.#editor.write(text, link);
    else this.#o.log.debug(`not forwarded: ${verdict.dropped ?? "the editor did not ask for _hermes/turn_ended"}`);
    this.#answerEditor(verdict.answers);
    this.#stdinEnd.answered();
  }

  #onClose(link: ServiceConnection, code: number, reason: string): void {
    if (this.#link !== link) return;
    this.#link = undefined;
    this.#o.upstreams?.offline();
    if (this.#state === "closed") return;
    const lived = Date.now() - this.#openedAt;
    if (lived >= STABLE_MS) this.#attempt = 0;
    if (this.#state === "open") this.#outage.began();
    this.#o.log.warn(`connection to the service closed (code ${code}${reason ? `, ${reason}` : ""}); reconnecting`);
    const { answers, resend } = this.#tracker.disconnected();
    this.#answerEditor(answers);
    this.#outbox.unshift(resend.map(({ id, text }) => ({ kind: "request" as const, id, text })));
    if (this.#outage.gaveUp) this.#giveUp();
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    this.#state = "waiting";
    const delay = backoffDelay(this.#attempt, this.#o.random ?? Math.random);
    this.#attempt += 1;
    this.#o.log.debug(`reconnect attempt ${this.#attempt} in ${delay} ms`);
    this.#connectSoon(delay);
    this.#outage.arm(() => this.#giveUp());
  }

  /** Past --give-up-after: fail what waits, answer new requests at once, keep retrying. */
  #giveUp(): void {
    if (!this.#waitingForService()) return;
    if (this.#outage.giveUp()) this.#o.log.error(`${this.#unreachableError().message}; failing pending requests`);
    this.#failWaiting(this.#unreachableError());
  }

  /** Never connected yet, and the editor has waited long enough (or the cause will not go away): tell it why. */
  #failStartup(): void {
    const { startup } = this.#outage;
    startup.answered();
    if (!this.#waitingForService()) return;
    const error = startupError(this.#o.credentials.current.url, startup.lastFailure, startup.waitedMs);
    this.#o.log.error(`${error.message} (answering the editor's waiting requests; still retrying)`);
    this.#failWaiting(error);
  }

  /** Whether requests wait for a connection (not open, not stopped, not logged out). */
  #waitingForService(): boolean {
    return this.#state !== "open" && this.#state !== "closed" && this.#state !== "loggedOut";
  }

  /** Answers every waiting editor request with `error` and drops the notifications queued for the service. */
  #failWaiting(error: ErrorResponse): void {
    this.#answerEditor(this.#tracker.failAll(error));
    const queued = this.#outbox.drain();
    // Answers to the service's requests wait for it to come back (see #editorResponse).
    this.#outbox.unshift(queued.filter((item) => item.kind === "response"));
    const dropped = queued.filter((item) => item.kind === "notification").length;
    if (dropped > 0) this.#o.log.warn(`dropped ${dropped} queued notification(s) for the unreachable service`);
  }

  #unreachableError(): ErrorResponse {
    return this.#outage.error(this.#o.credentials.current.url);
  }

  #fatalUnauthorized(failure: ConnectFailure & { kind: "unauthorized" }): void {
    const { log, error } = unauthorized(failure, this.#o.credentials.current);
    this.#o.log.error(log);
    this.#answerEditor(this.#tracker.failAll(error));
    this.#outbox.drain();
    void this.stop(1);
  }

  /** `logout`: forget the saved token, close the service connection, answer `{}`; requests get -32000 until `authenticate`. */
  async #logout(id: RequestId): Promise<void> {
    const outcome = this.#login.logout();
    if ("error" in outcome) return this.#answerError(id, outcome.error);
    this.#state = "loggedOut";
    this.#failWaiting(outcome.failPending);
    await this.#disconnect("logged out");
    this.#answerEditor([{ id, result: {} }]);
  }

  /** `initialize` while logged out: answered here; the connection that `authenticate` opens replays it. */
  #initializeLocally(message: IncomingRequest): void {
    ({ message } = this.#turnEnded.initialize(message));
    ({ message } = this.#o.upstreams?.initialize(message) ?? { message });
    this.#tracker.initializedLocally(message.params);
    const client = (message.params as { clientCapabilities?: ClientCapabilities } | undefined)?.clientCapabilities;
    this.#answerEditor([{ id: message.id, result: initializeResult(client, { name: "hermes-edge", version: PACKAGE_VERSION }) }]);
  }

  /** `authenticate` while logged out: read the credentials again and connect with them; answered once connected. */
  #authenticate(id: RequestId): void {
    if (!this.#login.startAuthenticate(id)) return;
    this.#outage.restart();
    this.#attempt = 0;
    this.#connectSoon(0);
  }

  /** Closes the connection (if any) quietly: its close is not an outage. */
  async #disconnect(reason: string): Promise<void> {
    this.#stopTimers();
    const link = this.#link;
    this.#link = undefined;
    this.#o.upstreams?.offline();
    await link?.close(reason);
  }

  #stopTimers(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#outage.stop();
  }

  #answerError(id: RequestId, error: ErrorResponse): void {
    this.#answerEditor([{ id, error }]);
  }

  /** Answers the editor on the service's behalf (or passes the tracker's answers on); the MCP host hears of setups that failed. */
  #answerEditor(answers: readonly ClientAnswer[]): void {
    for (const { id } of answers) this.#oversize.answered(id);
    this.mcp.answeredLocally(answers);
    this.#editor.answer(answers);
    this.#stdinEnd.answered();
  }

  #sendRequest(id: RequestId, text: string): void {
    this.#link?.send(text);
    this.#tracker.clientSent(id, this.#connectionId);
    this.#oversize.sent(id, text);
  }

  #sendResponse(id: JsonRpcId, text: string): void {
    this.#link?.send(text);
    if (id !== null) this.#serviceRequests.sent(id, Date.now());
  }
}

/** No token from any source, and an editor that can run the terminal setup method: the first run. */
function needsSetup(tokenSource: string, params: unknown): boolean {
  const caps = (params as { clientCapabilities?: ClientCapabilities } | undefined)?.clientCapabilities;
  return tokenSource === "none" && caps?.auth?.terminal === true;
}
