/**
 * Proxy-hosted upstream ACP agents, seen from a session: a connection that
 * declared `clientCapabilities._meta.hermes.upstreams` offers them as models,
 * and a model call on one speaks ACP through `_hermes/upstream/message`
 * notifications on that connection.
 *
 * The connection hands every tunnel message to each of its sessions, so each
 * tunnel keeps only its own: responses to the requests it sent (their ids are
 * rewritten to carry the tunnel's prefix) and requests and notifications about
 * the upstream sessions it opened. Two sessions can use one process at once.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { declaredUpstreams, notificationFrame, UPSTREAM_MESSAGE, type UpstreamMessage } from "@hermes-edge/protocol";
import { UpstreamUnavailable, type UpstreamEndpoint } from "../agent/providers/acp-upstream-provider.js";
import { upstreamModel } from "../agent/providers/upstream-config.js";
import type { UpdateLog } from "./update-log.js";

export class UpstreamTunnels {
  readonly #open = new Set<Tunnel>();
  #opened = 0;

  constructor(private readonly log: UpdateLog) {}

  /** `acp:<id>` for every upstream an attached connection declared. */
  models(): string[] {
    return [...new Set(this.log.attached().flatMap(([, caps]) => declaredUpstreams(caps).map((u) => upstreamModel(u.id))))];
  }

  /** The upstream `id` as declared by the preferred connection, else by any attached one. */
  endpoint(id: string, preferred: string | null): UpstreamEndpoint | undefined {
    const attached = this.log.attached();
    const ordered = [...attached.filter(([c]) => c === preferred), ...attached.filter(([c]) => c !== preferred)];
    for (const [connectionId, caps] of ordered) {
      const declared = declaredUpstreams(caps).find((u) => u.id === id);
      if (!declared) continue;
      return {
        id,
        name: declared.name,
        open: async () => {
          if (!this.log.isAttached(connectionId)) throw new UpstreamUnavailable("the proxy that runs it is no longer connected");
          const tunnel = new Tunnel(this.log, connectionId, id, `${this.log.store.record()!.sessionId}~${++this.#opened}~`, () => this.#open.delete(tunnel));
          this.#open.add(tunnel);
          return tunnel.stream;
        },
      };
    }
    return undefined;
  }

  receive(connectionId: string, params: UpstreamMessage): void {
    for (const tunnel of this.#open) tunnel.receive(connectionId, params);
  }

  /** The proxy's connection went away: its tunnels end. */
  detached(connectionId: string): void {
    for (const tunnel of this.#open) if (tunnel.connectionId === connectionId) tunnel.fail(new Error("the proxy that runs it disconnected"));
  }
}

class Tunnel {
  readonly stream: Stream;
  #controller!: ReadableStreamDefaultController<AnyMessage>;
  /** Rewritten id → the SDK's own id, for requests still waiting for their answer. */
  readonly #pending = new Map<string, { id: string | number; method: string }>();
  readonly #sessions = new Set<string>();
  #closed = false;

  constructor(
    private readonly log: UpdateLog,
    readonly connectionId: string,
    private readonly upstreamId: string,
    private readonly prefix: string,
    private readonly onClose: () => void,
  ) {
    const readable = new ReadableStream<AnyMessage>({ start: (c) => void (this.#controller = c) });
    const writable = new WritableStream<AnyMessage>({
      write: (message) => this.#send(message),
      close: () => this.#close(),
      abort: () => this.#close(),
    });
    this.stream = { readable, writable };
  }

  receive(connectionId: string, { upstreamId, message }: UpstreamMessage): void {
    if (this.#closed || connectionId !== this.connectionId || upstreamId !== this.upstreamId) return;
    const m = message as { id?: unknown; method?: unknown; params?: { sessionId?: unknown }; result?: { sessionId?: unknown } };
    if (typeof m.method !== "string") {
      const request = typeof m.id === "string" ? this.#pending.get(m.id) : undefined;
      if (!request) return; // another tunnel's answer
      this.#pending.delete(m.id as string);
      if (request.method === "session/new" && typeof m.result?.sessionId === "string") this.#sessions.add(m.result.sessionId);
      this.#controller.enqueue({ ...message, id: request.id } as AnyMessage);
      return;
    }
    if (typeof m.params?.sessionId === "string" && this.#sessions.has(m.params.sessionId)) this.#controller.enqueue(message as AnyMessage);
  }

  fail(error: Error): void {
    if (this.#closed) return;
    this.#controller.error(error);
    this.#close();
  }

  #send(message: AnyMessage): void {
    let out = message as Record<string, unknown>;
    if ("method" in message && "id" in message && message.id !== undefined && message.id !== null) {
      const id = `${this.prefix}${message.id}`;
      this.#pending.set(id, { id: message.id, method: message.method });
      out = { ...message, id };
    }
    this.log.send(this.connectionId, notificationFrame(UPSTREAM_MESSAGE, { upstreamId: this.upstreamId, message: out }));
  }

  #close(): void {
    this.#closed = true;
    this.onClose();
  }
}
