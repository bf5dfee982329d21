/**
 * The stream the SDK's client talks through: it stays open while the
 * WebSockets under it come and go. When a socket drops, it reconnects with
 * backoff, replays `initialize`, re-attaches every session with
 * `_meta.hermes.afterSeq` (the shared reconnect tracker decides what was
 * already delivered), and only then lets the client's queued frames out. The
 * client sees "Reconnecting…" and a complete, duplicate-free stream.
 * @module
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { WebSocketConstructor } from "@agentclientprotocol/sdk/experimental/ws-client";
import {
  attributeOversize,
  backoffDelay,
  decodeFrame,
  ErrorCode,
  OversizeLedger,
  OwnRequests,
  reattach,
  ReconnectTracker,
  ServiceRequests,
  type ClientAnswer,
  type Frame,
  type RequestId,
} from "./hermes-protocol.js";
import type { Refusal } from "./refusal.js";
import { openLink, type SocketLink } from "./socket-link.js";

export type ConnectionStatus =
  | { readonly state: "connecting" }
  | { readonly state: "open" }
  | { readonly state: "reconnecting"; readonly attempt: number; readonly reason: string }
  | { readonly state: "closed"; readonly reason: string };

export interface TransportOptions {
  readonly url: string;
  readonly protocols: string[];
  /** Asked when a socket does not open: why not, and whether retrying can help. */
  readonly explainRefusal: () => Promise<Refusal>;
  readonly onStatus?: (status: ConnectionStatus) => void;
  readonly WebSocket?: WebSocketConstructor;
  readonly random?: () => number;
}

/** The first connection could not be made; `refusal.message` is the service's reason when it gave one. */
export class ConnectionRefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
    this.name = "ConnectionRefusedError";
  }
}

type Queued =
  | { readonly kind: "request"; readonly id: RequestId; readonly text: string }
  /** The client's answer to the service's request `id`. */
  | { readonly kind: "answer"; readonly id: RequestId; readonly text: string }
  | { readonly kind: "other"; readonly text: string };

const HANDSHAKE_TIMEOUT_MS = 15_000;
const OWN_REQUEST_TIMEOUT_MS = 30_000;
/** A connection that lived this long was healthy: the next outage starts backoff afresh. */
const STABLE_MS = 10_000;

const silentLog = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

export class ReconnectingTransport {
  readonly stream: Stream;
  readonly #o: TransportOptions;
  readonly #tracker = new ReconnectTracker();
  readonly #own = new OwnRequests("hermes-web");
  readonly #oversize = new OversizeLedger();
  readonly #serviceRequests = new ServiceRequests();
  #toClient!: ReadableStreamDefaultController<AnyMessage>;
  #outbox: Queued[] = [];
  #link: SocketLink | undefined;
  #open = false;
  #status: ConnectionStatus = { state: "connecting" };
  #attempt = 0;
  #openedAt = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;

  constructor(options: TransportOptions) {
    this.#o = options;
    this.stream = {
      readable: new ReadableStream<AnyMessage>({ start: (controller) => void (this.#toClient = controller) }),
      writable: new WritableStream<AnyMessage>({
        write: (message) => this.#fromClient(message),
        close: () => this.close("the client closed the connection"),
        abort: () => this.close("the client closed the connection"),
      }),
    };
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  /** Opens the first socket. Rejects with {@link ConnectionRefusedError} when it cannot. */
  async start(): Promise<void> {
    const outcome = await this.#openSocket();
    if (outcome === "open" || outcome === "dropped") return;
    this.close(outcome.message);
    throw new ConnectionRefusedError(outcome);
  }

  /** Ends for good: the socket closes with 1000 and every pending request fails with `reason`. */
  close(reason: string): void {
    if (this.#isClosed()) return;
    clearTimeout(this.#retry);
    this.#setStatus({ state: "closed", reason });
    const link = this.#link;
    this.#link = undefined;
    this.#open = false;
    link?.close(1000, "client closed");
    this.#own.abandon(reason);
    this.#answer(this.#tracker.failAll({ code: ErrorCode.internalError, message: `The connection is closed: ${reason}` }));
    try {
      this.#toClient.close();
    } catch {
      // already closed
    }
  }

  /** A method, not a field read, so TypeScript does not carry narrowing across awaits. */
  #isClosed(): boolean {
    return this.#status.state === "closed";
  }

  /**
   * Opens a socket and re-attaches: "open"; "dropped" when the socket opened
   * but closed again (its close handler schedules the next attempt); or why
   * it did not open.
   */
  async #openSocket(): Promise<"open" | "dropped" | Refusal> {
    const outcome = await openLink(
      this.#o.url,
      this.#o.protocols,
      { message: (link, message) => this.#fromService(link, message), closed: (link, code, reason) => this.#onClosed(link, code, reason) },
      { WebSocket: this.#o.WebSocket, timeoutMs: HANDSHAKE_TIMEOUT_MS },
    );
    if (this.#isClosed()) {
      if (outcome.ok) outcome.link.close();
      return { kind: "other", message: "closed", final: true };
    }
    if (!outcome.ok) {
      // The browser's text quotes the subprotocols, and one of them is the key.
      if (outcome.thrown) return { kind: "other", message: `The WebSocket could not be created: ${this.#redact(outcome.thrown.message)}`, final: true };
      return this.#o.explainRefusal();
    }
    const link = outcome.link;
    this.#link = link;
    this.#openedAt = Date.now();
    this.#tracker.connected(null);
    const result = await reattach(this.#tracker, {
      request: (method, params) => {
        const { id, response } = this.#own.start(OWN_REQUEST_TIMEOUT_MS);
        link.send({ jsonrpc: "2.0", id, method, params } as AnyMessage);
        return response;
      },
      answer: (answers) => this.#answer(answers),
      log: silentLog,
      cwd: "/",
    });
    // Prompts the service never received go out again first.
    this.#outbox = [...result.resend.map(({ id, text }) => ({ kind: "request" as const, id, text })), ...this.#outbox];
    if (this.#link !== link || this.#isClosed()) return "dropped";
    if (!result.ok) {
      link.close(4000, `re-attaching failed: ${result.reason}`.slice(0, 120));
      return "dropped";
    }
    this.#open = true;
    this.#setStatus({ state: "open" });
    this.#serviceRequests.reopened(Date.now());
    const queued = this.#outbox;
    this.#outbox = [];
    for (const item of queued) this.#send(item);
    return "open";
  }

  #redact(text: string): string {
    return this.#o.protocols.reduce((out, p) => (p.length > 8 ? out.split(p).join("(the key)") : out), text);
  }

  #onClosed(link: SocketLink, code: number, reason: string): void {
    if (this.#link !== link) return;
    this.#link = undefined;
    this.#open = false;
    this.#own.abandon("the connection closed");
    if (this.#isClosed()) return;
    if (Date.now() - this.#openedAt >= STABLE_MS) this.#attempt = 0;
    const { answers, resend } = this.#tracker.disconnected();
    this.#answer(answers);
    this.#outbox = [...resend.map(({ id, text }) => ({ kind: "request" as const, id, text })), ...this.#outbox];
    this.#scheduleReconnect(`the connection closed (code ${code}${reason ? `, ${reason}` : ""})`);
  }

  #scheduleReconnect(reason: string): void {
    clearTimeout(this.#retry);
    const delay = backoffDelay(this.#attempt, this.#o.random ?? Math.random);
    this.#attempt += 1;
    this.#setStatus({ state: "reconnecting", attempt: this.#attempt, reason });
    this.#retry = setTimeout(() => {
      void this.#openSocket().then((outcome) => {
        if (outcome === "open" || outcome === "dropped" || this.#isClosed()) return;
        if (outcome.final) this.close(outcome.message);
        else this.#scheduleReconnect(outcome.message);
      });
    }, delay);
  }

  #fromClient(message: AnyMessage): void {
    if (this.#status.state === "closed") throw new Error(`The connection is closed: ${this.#status.reason}`);
    const text = JSON.stringify(message);
    const frame = decodeFrame(text);
    if (frame.kind === "invalid") return;
    if (frame.kind === "request") {
      this.#tracker.clientRequest(frame.message, text);
      this.#post({ kind: "request", id: frame.message.id, text });
      return;
    }
    const id = frame.kind === "response" ? frame.message.id : null;
    // Answers too wait for the link to be open: the service drops one from a connection not yet re-attached.
    this.#post(id !== null && this.#serviceRequests.answered(id, text) ? { kind: "answer", id, text } : { kind: "other", text });
  }

  /** Sends now if the link is open (re-attached), else queues in order. */
  #post(item: Queued): void {
    if (this.#open) this.#send(item);
    else this.#outbox.push(item);
  }

  #send(item: Queued): void {
    const link = this.#link;
    if (!link) return;
    link.send(JSON.parse(item.text) as AnyMessage);
    if (item.kind === "request") {
      this.#tracker.clientSent(item.id, null);
      this.#oversize.sent(item.id, item.text);
    } else if (item.kind === "answer") {
      this.#serviceRequests.sent(item.id, Date.now());
    }
  }

  #fromService(link: SocketLink, message: AnyMessage): void {
    if (this.#link !== link) return;
    const decoded = decodeFrame(JSON.stringify(message));
    if (decoded.kind === "invalid") return;
    let frame: Frame = decoded;
    if (frame.kind === "response" && frame.message.id !== null) {
      const { id, error, result } = frame.message;
      if (this.#own.settle(id, error ? { kind: "error", error } : { kind: "result", result })) return;
      this.#oversize.answered(id);
    }
    frame = attributeOversize(frame, this.#oversize);
    if (frame.kind === "request") {
      // After a re-attach the service sends its unanswered requests again; the client already has them.
      const { id } = frame.message;
      const arrival = this.#serviceRequests.arrived(id, Date.now(), this.#open);
      if (arrival.kind === "answer-again") this.#post({ kind: "answer", id, text: arrival.text });
      if (arrival.kind !== "new") return;
    } else if (frame.kind === "notification") this.#serviceRequests.notified(frame.message);
    const verdict = this.#tracker.fromService(frame);
    if (verdict.forward) this.#deliver(frame === decoded ? message : (frame.message as AnyMessage));
    this.#answer(verdict.answers);
  }

  #answer(answers: readonly ClientAnswer[]): void {
    for (const { id, result, error } of answers) {
      this.#oversize.answered(id);
      this.#deliver((error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result }) as AnyMessage);
    }
  }

  #deliver(message: AnyMessage): void {
    try {
      this.#toClient.enqueue(message);
    } catch {
      // the client is gone
    }
  }

  #setStatus(status: ConnectionStatus): void {
    this.#status = status;
    this.#o.onStatus?.(status);
  }
}
