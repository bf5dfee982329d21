/**
 * A session's presence on the wire: ownership checks, attached connections,
 * the update log and its ordered delivery, responses, requests to the editor.
 * Prompts run in `PromptRunner`; `SessionKernel` wires the parts together.
 */
import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import {
  errorFrame,
  notificationFrame,
  resultFrame,
  sessionNotFound,
  TURN_ENDED,
  updateSeqMeta,
  type ErrorResponse,
  type RequestId,
  type TurnEndedParams,
} from "@hermes-edge/protocol";
import { ClientRequests } from "./client-requests.js";
import type { ConnectionRef } from "./connection-ref.js";
import { Outbox, type Deliver } from "./outbox.js";
import type { SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";

/** How long a request to the editor outlives its dropped connection, waiting for a reattach. */
export const ORPHAN_GRACE_MS = 30_000;

export interface RuntimePorts {
  store: SessionStore;
  deliver(connectionId: string): Deliver;
  now(): number;
}

export class SessionRuntime {
  readonly #outboxes = new Map<string, Outbox>();
  readonly #attached = new Map<string, ClientCapabilities>();
  readonly requests: ClientRequests;

  constructor(readonly ports: RuntimePorts) {
    this.requests = new ClientRequests(
      () => ports.store.record()?.sessionId ?? "",
      (connectionId, requestId) => {
        if (this.#attached.has(connectionId)) this.outbox(connectionId).push(notificationFrame("$/cancel_request", { requestId }));
      },
    );
    for (const row of ports.store.attachments()) {
      this.#attached.set(row.connectionId, JSON.parse(row.clientCaps) as ClientCapabilities);
    }
  }

  get store(): SessionStore {
    return this.ports.store;
  }

  /** The record if `conn`'s tenant owns this session; otherwise the same -32002 as for an unknown id. */
  own(conn: Pick<ConnectionRef, "tenant">): SessionRecord {
    const record = this.store.record();
    if (!record || record.tenant !== conn.tenant) throw sessionNotFound();
    return record;
  }

  /** Like `own`, and the connection must have created, loaded or resumed the session. */
  ownAttached(conn: ConnectionRef): SessionRecord {
    const record = this.own(conn);
    if (!this.#attached.has(conn.connectionId)) throw sessionNotFound();
    return record;
  }

  isAttached(connectionId: string): boolean {
    return this.#attached.has(connectionId);
  }

  /** Attached connections, most recently attached first. */
  attachedConnections(): [string, ClientCapabilities][] {
    return [...this.#attached.entries()].reverse();
  }

  attach(conn: ConnectionRef): void {
    this.store.attach(conn.connectionId, conn.clientCapabilities, this.ports.now());
    this.#attached.delete(conn.connectionId);
    this.#attached.set(conn.connectionId, conn.clientCapabilities);
  }

  /** A connection went away; what the editor was asked waits a while for it (or another) to come back. */
  detach(connectionId: string): void {
    this.#forget(connectionId);
    this.requests.orphan(connectionId, ORPHAN_GRACE_MS);
  }

  /** Close and delete: every connection is let go and nothing waits for them. */
  detachAll(): void {
    for (const connectionId of [...this.#attached.keys()]) {
      this.#forget(connectionId);
      this.requests.failConnection(connectionId);
    }
  }

  /** Sends the editor requests left by a dropped connection to one that attached since. */
  resendOrphaned(connectionId: string): void {
    for (const frame of this.requests.adopt(connectionId)) this.outbox(connectionId).push(frame);
  }

  #forget(connectionId: string): void {
    this.#attached.delete(connectionId);
    this.#outboxes.delete(connectionId);
    this.store.detach(connectionId);
  }

  /** Logs an update under the next seq and sends it to every attached connection. */
  emit(update: SessionUpdate, options: { exclude?: string | null; only?: string } = {}): number {
    const sessionId = this.store.record()!.sessionId;
    const { seq, frame } = this.store.appendLog((seq) =>
      notificationFrame("session/update", { sessionId, update, _meta: updateSeqMeta(seq) }),
    );
    if (options.only !== undefined) this.outbox(options.only).push(frame);
    else this.broadcast(frame, options.exclude);
    return seq;
  }

  /** Logs and broadcasts `_hermes/turn_ended`, so a reconnecting client learns of it too. */
  emitTurnEnded(params: Omit<TurnEndedParams, "seq">): void {
    const { frame } = this.store.appendLog((seq) => notificationFrame(TURN_ENDED, { ...params, seq }));
    this.broadcast(frame);
  }

  broadcast(frame: string, exclude?: string | null): void {
    for (const connectionId of this.#attached.keys()) {
      if (connectionId !== exclude) this.outbox(connectionId).push(frame);
    }
  }

  respond(connectionId: string | null, id: RequestId | null, outcome: { result: unknown } | { error: ErrorResponse }): void {
    if (connectionId === null || !this.#attached.has(connectionId)) return;
    this.outbox(connectionId).push("error" in outcome ? errorFrame(id, outcome.error) : resultFrame(id, outcome.result));
  }

  outbox(connectionId: string): Outbox {
    let outbox = this.#outboxes.get(connectionId);
    if (!outbox || outbox.gone) {
      outbox = new Outbox(this.ports.deliver(connectionId), () => this.detach(connectionId));
      this.#outboxes.set(connectionId, outbox);
    }
    return outbox;
  }
}
