/**
 * One conversation with a proxy-hosted upstream agent, as a session sees it:
 * a model call's tunnel, or (in a parent) a sub-agent's calls relayed through
 * it. Every tunnel message of the proxy reaches every route, so a route keeps
 * only its own: answers to the requests it sent and messages about the
 * upstream sessions those requests opened.
 *
 * A route is bound to one way out (a connection of the proxy, or the parent
 * session). When the proxy's connection drops, the route is held: what it
 * sends waits, and the proxy's re-attach binds it again, then the held
 * messages and the requests still unanswered go out (the proxy ignores a
 * request id it already has). A proxy that does not come back fails it.
 */
import type { UpstreamMessage } from "@hermes-edge/protocol";

export type TunnelMessage = UpstreamMessage["message"];

/** Where a route's messages go, and the key the messages it takes arrive under. */
export interface RouteOut {
  /** The connection id, or the parent's key (`parentKey`). */
  key: string;
  /** Sends one message; a promise of false means that way is gone. */
  send(params: UpstreamMessage): void | Promise<boolean>;
}

export interface RouteSink {
  deliver(message: TunnelMessage): void;
  /** The route failed; `pending` are the sender's ids of its requests still unanswered. */
  fail(error: Error, pending: (string | number)[]): void;
}

/** Messages one route may hold while its proxy reconnects. */
export const HELD_LIMIT = 1_000;

interface Pending {
  id: string | number;
  method: string;
  wire: TunnelMessage;
}

export class TunnelRoute {
  #out: RouteOut | null;
  readonly #held: TunnelMessage[] = [];
  /** Wire id (JSON) → the sender's own id, for requests still waiting for their answer. */
  readonly #pending = new Map<string, Pending>();
  readonly #sessions = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** @param prefix set for a model call's own tunnel: its request ids are rewritten to carry it. */
  constructor(
    readonly upstreamId: string,
    out: RouteOut,
    private readonly sink: RouteSink,
    private readonly onClose: () => void,
    private readonly prefix: string | null = null,
  ) {
    this.#out = out;
  }

  /** The key it is bound to; null while held. */
  get key(): string | null {
    return this.#out?.key ?? null;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** It opened upstream sessions, which live only in the process that made them. */
  get hasUpstreamSessions(): boolean {
    return this.#sessions.size > 0;
  }

  send(message: TunnelMessage): void {
    if (this.#closed) return;
    let wire = message;
    if (typeof message.method === "string" && (typeof message.id === "string" || typeof message.id === "number")) {
      wire = this.prefix === null ? message : { ...message, id: `${this.prefix}${message.id}` };
      this.#pending.set(JSON.stringify(wire.id), { id: message.id, method: message.method, wire });
    }
    if (!this.#out) {
      if (this.#held.length >= HELD_LIMIT) return this.fail(new Error(`more than ${HELD_LIMIT} messages waited for the proxy that runs it to reconnect`));
      this.#held.push(wire);
      return;
    }
    this.#write(this.#out, wire);
  }

  /** A message of the upstream's, arriving under `key`; taken only if it is this route's. */
  receive(key: string, { upstreamId, message }: UpstreamMessage): void {
    if (this.#closed || key !== this.key || upstreamId !== this.upstreamId) return;
    const m = message as { id?: unknown; method?: unknown; params?: { sessionId?: unknown }; result?: { sessionId?: unknown } };
    if (typeof m.method !== "string") {
      const wireId = JSON.stringify(m.id ?? null);
      const request = this.#pending.get(wireId);
      if (!request) return; // another route's answer
      this.#pending.delete(wireId);
      if (typeof m.result?.sessionId === "string" && (request.method === "session/new" || request.method === "session/load")) this.#sessions.add(m.result.sessionId);
      this.sink.deliver(this.prefix === null ? message : { ...message, id: request.id });
      return;
    }
    if (typeof m.params?.sessionId === "string" && this.#sessions.has(m.params.sessionId)) this.sink.deliver(message);
  }

  /** Its way out is gone: hold what it sends for `graceMs`, then fail with `cause`. */
  hold(graceMs: number, cause: string): void {
    if (this.#closed || !this.#out) return;
    this.#out = null;
    this.#timer = setTimeout(() => this.fail(new Error(cause)), graceMs);
  }

  /** Bound again (the proxy re-attached): held messages, then unanswered requests that may have been lost, go out. */
  rebind(out: RouteOut): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#out = out;
    const held = this.#held.splice(0);
    const resent = [...this.#pending.values()].map((p) => p.wire).filter((wire) => !held.includes(wire));
    for (const wire of [...resent, ...held]) this.#write(out, wire);
  }

  fail(error: Error): void {
    if (this.#closed) return;
    const pending = [...this.#pending.values()].map((p) => p.id);
    this.close();
    this.sink.fail(error, pending);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#held.length = 0;
    this.onClose();
  }

  #write(out: RouteOut, wire: TunnelMessage): void {
    const sent = out.send({ upstreamId: this.upstreamId, message: wire });
    if (!sent) return;
    sent.then(
      (ok) => ok || this.fail(new Error("its parent session can no longer reach the proxy that runs it")),
      (err: unknown) => this.fail(new Error(`its parent session could not be reached (${err instanceof Error ? err.message : String(err)})`)),
    );
  }
}
