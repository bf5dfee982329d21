/**
 * Proxy-hosted upstream ACP agents, seen from a session: a connection that
 * declared `clientCapabilities._meta.hermes.upstreams` offers them as models,
 * and a model call on one speaks ACP through `_hermes/upstream/message`
 * notifications on that connection.
 *
 * The connection hands every tunnel message to each of its sessions; each
 * call's `TunnelRoute` keeps only its own, so two sessions can use one process
 * at once. A sub-agent has no connection: its parent lends it the upstreams
 * it reaches (`lend`), the sub-agent's tunnel sends through the parent
 * (`forwardUpstreamMessage`), and the parent relays the proxy's answers back
 * to it (`relay`), as it does for the sub-agent's editor requests.
 *
 * A proxy that reconnects re-attaches its sessions; a route bound to its old
 * connection is held meanwhile and bound to the new one when it attaches.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { declaredUpstreams, notificationFrame, UPSTREAM_MESSAGE, type DeclaredUpstream, type UpstreamMessage } from "@hermes-edge/protocol";
import { UpstreamUnavailable, type UpstreamEndpoint } from "../agent/providers/acp-upstream-provider.js";
import { upstreamModel } from "../agent/providers/upstream-config.js";
import { TunnelRoute, type RouteOut, type RouteSink, type TunnelMessage } from "./tunnel-route.js";
import { ORPHAN_GRACE_MS, type UpdateLog } from "./update-log.js";

/** How long a call waits for the proxy that runs its upstream to reconnect (as editor requests do). */
export const UPSTREAM_REBIND_GRACE_MS = ORPHAN_GRACE_MS;

/** The key a sub-agent's tunnel messages arrive under from its parent (`upstreamMessage`). */
export function parentKey(parentSessionId: string): string {
  return `parent:${parentSessionId}`;
}

/** The upstreams a parent lends its sub-agent for the task it runs. */
export interface LentUpstreams {
  parentSessionId: string;
  upstreams: DeclaredUpstream[];
  /** Sends a tunnel message through the parent; false when the parent cannot reach that upstream any more. */
  forward(params: UpstreamMessage): Promise<boolean>;
}

export class UpstreamTunnels {
  readonly #routes = new Set<TunnelRoute>();
  /** A sub-agent's relayed calls, per sub-agent and upstream (`${subagentId} ${upstreamId}`). */
  readonly #relays = new Map<string, TunnelRoute>();
  #lent: LentUpstreams | undefined;
  #opened = 0;

  /**
   * @param instance tells this object's calls from those of the object it
   * replaced: the proxy remembers the ids it answered, and the SDK numbers
   * each call's requests from 0 again.
   */
  constructor(
    private readonly log: UpdateLog,
    private readonly graceMs: number = UPSTREAM_REBIND_GRACE_MS,
    private readonly instance: string = crypto.randomUUID().slice(0, 8),
  ) {}

  /** As a sub-agent: the parent's upstreams while its task runs (undefined when it ends). */
  lend(lent: LentUpstreams | undefined): void {
    this.#lent = lent;
  }

  /** Every upstream this session reaches: declared by an attached connection, or lent by its parent. */
  declared(): DeclaredUpstream[] {
    const all = [...this.log.attached().flatMap(([, caps]) => declaredUpstreams(caps)), ...(this.#lent?.upstreams ?? [])];
    return all.filter((u, i) => all.findIndex((v) => v.id === u.id) === i);
  }

  /** `acp:<id>` for every upstream this session reaches. */
  models(): string[] {
    return this.declared().map((u) => upstreamModel(u.id));
  }

  /** The upstream `id`, reached through the preferred connection if it declared it, else any way this session has. */
  endpoint(id: string, preferred: string | null): UpstreamEndpoint | undefined {
    const declared = this.declared().find((u) => u.id === id);
    if (!declared) return undefined;
    return {
      id,
      name: declared.name,
      open: async () => {
        const out = this.#out(id, preferred);
        if (!out) throw new UpstreamUnavailable("the proxy that runs it is no longer connected");
        const prefix = `${this.log.store.record()!.sessionId}~${this.instance}.${++this.#opened}~`;
        let controller!: ReadableStreamDefaultController<AnyMessage>;
        // The call's connection closes by cancelling what it reads: that ends the route too.
        const readable = new ReadableStream<AnyMessage>({ start: (c) => void (controller = c), cancel: () => route.close() });
        // A closed route delivers nothing more, so nothing is enqueued after the stream ends.
        const sink: RouteSink = {
          deliver: (m) => controller.enqueue(m as AnyMessage),
          // Its waiting requests are answered with the cause, so the call's error names it
          // (erroring the stream would discard those answers).
          fail: (error, pending) => {
            for (const id of pending) controller.enqueue({ jsonrpc: "2.0", id, error: { code: -32603, message: error.message } });
            if (pending.length > 0) controller.close();
            else controller.error(error);
          },
        };
        const route = new TunnelRoute(id, out, sink, () => this.#routes.delete(route), prefix);
        this.#routes.add(route);
        const writable = new WritableStream<AnyMessage>({
          write: (message) => route.send(message as TunnelMessage),
          close: () => route.close(),
          abort: () => route.close(),
        });
        return { readable, writable } satisfies Stream;
      },
    };
  }

  /** A message of an upstream, from a proxy's connection (or, for a sub-agent, from its parent). */
  receive(key: string, params: UpstreamMessage): void {
    for (const route of this.#routes) route.receive(key, params);
  }

  /**
   * As a parent: a message of sub-agent `subagentId`'s tunnel, sent on the
   * way this session reaches that upstream; the answers go to `deliver`.
   * False when this session does not reach it.
   */
  relay(subagentId: string, params: UpstreamMessage, deliver: (params: UpstreamMessage) => Promise<void>): boolean {
    const key = `${subagentId} ${params.upstreamId}`;
    let route = this.#relays.get(key);
    if (!route || route.closed) {
      const out = this.#out(params.upstreamId, null);
      if (!out) return false;
      const upstreamId = params.upstreamId;
      const send = (message: TunnelMessage) => void deliver({ upstreamId, message }).catch((err) => console.warn("could not relay an upstream message to a sub-agent", { subagentId }, err));
      const sink: RouteSink = {
        deliver: send,
        // The sub-agent's own tunnel learns why through the answers to its requests.
        fail: (error, pending) => pending.forEach((id) => send({ jsonrpc: "2.0", id, error: { code: -32603, message: error.message } })),
      };
      const created = new TunnelRoute(upstreamId, out, sink, () => {
        this.#routes.delete(created);
        if (this.#relays.get(key) === created) this.#relays.delete(key);
      });
      route = created;
      this.#routes.add(route);
      this.#relays.set(key, route);
    }
    route.send(params.message);
    return true;
  }

  /** As a parent: a sub-agent's task ended; its relayed calls end too. */
  forget(subagentId: string): void {
    for (const [key, route] of this.#relays) if (key.startsWith(`${subagentId} `)) route.close();
  }

  /**
   * A proxy's connection went away: its routes wait for it to come back. One
   * that has not opened an upstream session yet may move at once to another
   * connection declaring the upstream; one that has stays, since another
   * proxy's process does not know that session.
   */
  detached(connectionId: string): void {
    for (const route of this.#routes) {
      if (route.key !== connectionId) continue;
      const other = route.hasUpstreamSessions ? undefined : this.#connectionOut(route.upstreamId, null);
      if (other) route.rebind(other);
      else route.hold(this.graceMs, `the proxy that runs it disconnected and did not come back within ${Math.round(this.graceMs / 1000)} s`);
    }
  }

  /**
   * A connection (re-)attached: routes waiting for a proxy that runs their
   * upstream are bound to it, and so are routes whose connection this session
   * let go of without a detach (its outbox found the socket gone).
   */
  attached(connectionId: string): void {
    for (const route of this.#routes) {
      const key = route.key;
      if (key !== null && (key.startsWith("parent:") || this.log.isAttached(key))) continue;
      const out = this.#connectionOut(route.upstreamId, connectionId);
      if (out?.key === connectionId) route.rebind(out);
    }
  }

  #out(upstreamId: string, preferred: string | null): RouteOut | undefined {
    const connection = this.#connectionOut(upstreamId, preferred);
    if (connection) return connection;
    const lent = this.#lent;
    if (!lent?.upstreams.some((u) => u.id === upstreamId)) return undefined;
    return { key: parentKey(lent.parentSessionId), send: (params) => lent.forward(params) };
  }

  #connectionOut(upstreamId: string, preferred: string | null): RouteOut | undefined {
    const attached = this.log.attached();
    const ordered = [...attached.filter(([c]) => c === preferred), ...attached.filter(([c]) => c !== preferred)];
    const found = ordered.find(([, caps]) => declaredUpstreams(caps).some((u) => u.id === upstreamId));
    if (!found) return undefined;
    const connectionId = found[0];
    return {
      key: connectionId,
      send: (params) => {
        this.log.send(connectionId, notificationFrame(UPSTREAM_MESSAGE, params));
      },
    };
  }
}
