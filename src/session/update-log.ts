/**
 * A session's update log and the connections attached to it. Every
 * `session/update` is stored under the next seq before it is sent; each
 * attached connection gets frames through its own ordered `Outbox` (below).
 * Responses and requests to the editor go through the same outboxes, so
 * nothing overtakes what was logged before it.
 */
import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import {
  errorFrame,
  notificationFrame,
  resultFrame,
  TURN_ENDED,
  updateSeqMeta,
  wantsTurnEnded,
  type ErrorResponse,
  type RequestId,
  type TurnEndedParams,
  type AccessRole,
} from "@hermes-edge/protocol";
import { ClientRequests } from "./client-requests.js";
import type { ConnectionRef } from "./connection-ref.js";
import { LOG_PAGE_SIZE, type SessionStore } from "./session-store.js";
import type { LogPage } from "./session-rpc.js";
import { answers } from "./access.js";

export interface AttachmentAccess {
  user: string | null;
  linkId: string | null;
  /** Absent: the tenant's admin (and every attachment made before users). */
  role?: AccessRole;
}

/** How long a request to the editor outlives its dropped connection, waiting for a reattach. */
export const ORPHAN_GRACE_MS = 30_000;

/** Logged `_hermes/turn_ended` frames start with this (they are built by `notificationFrame`). */
const TURN_ENDED_PREFIX = JSON.stringify({ jsonrpc: "2.0", method: TURN_ENDED }).slice(0, -1);

interface Attachment {
  capabilities: ClientCapabilities;
  /** Who attached and as what (access.ts); the agent's questions go only to those who may answer. */
  access: AttachmentAccess;
  /** The client asked for `_hermes/turn_ended` (`clientCapabilities._meta.hermes.turnEnded`). */
  turnEnded: boolean;
}

export class UpdateLog {
  readonly #outboxes = new Map<string, Outbox>();
  readonly #attached = new Map<string, Attachment>();
  /** Requests to the editor (permission, fs, terminal) and the answers they wait for. */
  readonly requests: ClientRequests;
  /** What else lets go of a connection that went away (its MCP servers, upstream tunnels); set by the session. */
  onDetach: (connectionId: string) => void = () => undefined;
  /** Waiting in `editorReachable` for an editor that may answer to attach. */
  readonly #editorWaiters = new Set<() => void>();

  constructor(
    readonly store: SessionStore,
    private readonly deliver: (connectionId: string) => Deliver,
    private readonly now: () => number = Date.now,
  ) {
    this.requests = new ClientRequests(
      () => store.record()?.sessionId ?? "",
      (connectionId, requestId) => {
        if (this.#attached.has(connectionId)) this.send(connectionId, notificationFrame("$/cancel_request", { requestId }));
      },
    );
    for (const row of store.attachments()) {
      this.#attached.set(row.connectionId, attachment(JSON.parse(row.clientCaps) as ClientCapabilities, row.access ? (JSON.parse(row.access) as AttachmentAccess) : undefined));
    }
  }

  // --- attachments -------------------------------------------------------------

  isAttached(connectionId: string): boolean {
    return this.#attached.has(connectionId);
  }

  /**
   * Attached connections that may be asked things (the owner's, an admin's,
   * drivers'), with what their clients can do, most recently attached first.
   * A viewer's connection gets the updates but is never picked to answer.
   */
  attached(): [string, ClientCapabilities][] {
    return [...this.#attached.entries()].reverse().filter(([, a]) => answers(a.access.role ?? "admin")).map(([id, a]) => [id, a.capabilities]);
  }

  /** The role a connection attached with (admin when it had none); undefined when it is not attached. */
  roleOf(connectionId: string): AccessRole | undefined {
    const a = this.#attached.get(connectionId);
    return a ? (a.access.role ?? "admin") : undefined;
  }

  /** The user a connection attached as (null: an admin key, or no longer attached). */
  userOf(connectionId: string | null): string | null {
    return connectionId === null ? null : (this.#attached.get(connectionId)?.access.user ?? null);
  }

  attach(conn: ConnectionRef): void {
    const access: AttachmentAccess = { user: conn.user ?? null, linkId: conn.linkId ?? null, ...(conn.role ? { role: conn.role } : {}) };
    this.store.attach(conn.connectionId, conn.clientCapabilities, this.now(), access);
    this.#attached.delete(conn.connectionId);
    this.#attached.set(conn.connectionId, attachment(conn.clientCapabilities, access));
    if (answers(access.role ?? "admin")) for (const wake of [...this.#editorWaiters]) wake();
  }

  /**
   * Resolves true once an editor that may answer is attached and its socket
   * live, false after `timeoutMs` without one. After a full restart the
   * attachments read from storage name connections whose sockets are gone:
   * what is on its way to them settles first, and a delivery that finds no
   * socket detaches them (an eviction leaves the sockets, and they stay).
   */
  async editorReachable(timeoutMs: number): Promise<boolean> {
    await Promise.all([...this.#outboxes.values()].map((outbox) => outbox.drained()));
    if (this.attached().length > 0) return true;
    let wake!: () => void;
    const attached = new Promise<boolean>((resolve) => (wake = () => resolve(true)));
    this.#editorWaiters.add(wake);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([attached, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    } finally {
      clearTimeout(timer);
      this.#editorWaiters.delete(wake);
    }
  }

  /**
   * A share changed: each connection of `user` (`*`: of every user but the
   * owner) that attached through shares gets `role` from now on, or is let go
   * when `role` is null. The owner's and admins' connections keep theirs.
   */
  reshare(user: string, roleFor: (user: string) => AccessRole | null): string[] {
    const changed: string[] = [];
    for (const [connectionId, a] of [...this.#attached]) {
      const current = a.access.role;
      if (current !== "viewer" && current !== "driver") continue;
      if (a.access.user === null || (user !== "*" && a.access.user !== user)) continue;
      const next = roleFor(a.access.user);
      if (next === current) continue;
      changed.push(connectionId);
      if (next === null) this.detach(connectionId);
      else {
        a.access = { ...a.access, role: next };
        this.store.attach(connectionId, a.capabilities, this.now(), a.access);
      }
    }
    return changed;
  }

  /** A connection went away; what the editor was asked waits a while for it (or another) to come back. */
  detach(connectionId: string): void {
    this.#forget(connectionId);
    this.requests.orphan(connectionId, ORPHAN_GRACE_MS);
    this.onDetach(connectionId);
    // An editor attached already (a resumed turn asked the connection a restart had cut): it takes them now.
    const newest = this.attached()[0];
    if (newest) this.resendOrphaned(newest[0]);
  }

  /** Close and delete: every connection is let go and nothing waits for them. */
  detachAll(): void {
    for (const connectionId of [...this.#attached.keys()]) {
      this.#forget(connectionId);
      this.requests.failConnection(connectionId);
    }
  }

  /** Sends the editor requests left by a dropped connection to one that attached since, and withdraws those given up on meanwhile. */
  resendOrphaned(connectionId: string): void {
    if (!answers(this.roleOf(connectionId))) return;
    const { resend, withdrawn } = this.requests.adopt(connectionId);
    for (const frame of resend) this.send(connectionId, frame);
    for (const requestId of withdrawn) this.send(connectionId, notificationFrame("$/cancel_request", { requestId }));
  }

  #forget(connectionId: string): void {
    this.#attached.delete(connectionId);
    this.#outboxes.delete(connectionId);
    this.store.detach(connectionId);
  }

  // --- the log -------------------------------------------------------------------

  /**
   * Logs an update under the next seq and sends it to every attached
   * connection (or `only` one). A user's prompt names the connection it came
   * through (`promptedThrough`), which is not sent it: its editor shows it already.
   */
  emit(update: SessionUpdate, options: { promptedThrough?: string | null; only?: string } = {}): number {
    const sessionId = this.store.record()!.sessionId;
    const from = options.promptedThrough ?? undefined;
    const { seq, frame } = this.store.appendLog((seq) => notificationFrame("session/update", { sessionId, update, _meta: updateSeqMeta(seq, from) }), update);
    if (options.only !== undefined) this.send(options.only, frame);
    else for (const connectionId of this.#attached.keys()) if (connectionId !== from) this.send(connectionId, frame);
    return seq;
  }

  /** Sends an update to one connection without logging it (it is about that client, not the session). */
  sendUnlogged(connectionId: string, update: SessionUpdate): void {
    this.send(connectionId, notificationFrame("session/update", { sessionId: this.store.record()!.sessionId, update }));
  }

  /**
   * Logs `_hermes/turn_ended`, so a reconnecting client learns of it too, and
   * sends it to the connections that asked for it.
   */
  emitTurnEnded(params: Omit<TurnEndedParams, "seq">): void {
    const { frame } = this.store.appendLog((seq) => notificationFrame(TURN_ENDED, { ...params, seq }));
    for (const [connectionId, a] of this.#attached) if (a.turnEnded) this.send(connectionId, frame);
  }

  /**
   * Replays logged frames after `afterSeq` to one connection, leaving out what
   * it did not ask for. Pages are read only as the outbox reaches them, so a
   * long log is never in memory whole. The replay ends at the seq logged when
   * it starts: the connection is attached, so what is logged later reaches it
   * live, queued behind the replay (and the response that follows it).
   */
  replay(connectionId: string, afterSeq: number): void {
    const outbox = this.outbox(connectionId);
    const turnEnded = this.#attached.get(connectionId)?.turnEnded ?? false;
    const keep = (frame: string) => turnEnded || !frame.startsWith(TURN_ENDED_PREFIX);
    outbox.pushPages(this.#replayPages(connectionId, outbox, this.store.logPages(afterSeq, this.store.lastSeq()), keep));
  }

  /**
   * One page of logged frames after `afterSeq` (up to `untilSeq`), with their
   * seqs, read by a connection for a resumed SSE stream, leaving out what it did
   * not ask for. Pulled rather than pushed through the outbox: the stream orders
   * them against what it holds itself. Null when the connection is not attached.
   */
  page(connectionId: string, afterSeq: number, untilSeq: number): LogPage | null {
    const attachment = this.#attached.get(connectionId);
    if (!attachment) return null;
    const rows = this.store.logEntries(afterSeq, untilSeq);
    const entries: LogPage["entries"] = [];
    let cursor = afterSeq;
    let chars = 0;
    for (const row of rows) {
      // Bounded like an outbox batch, so the RPC's answer stays well inside its size limit.
      if (entries.length > 0 && chars + row.frame.length > MAX_BATCH_CHARS) return { entries, cursor, more: true };
      chars += row.frame.length;
      cursor = row.seq;
      if (attachment.turnEnded || !row.frame.startsWith(TURN_ENDED_PREFIX)) entries.push({ seq: row.seq, frame: row.frame });
    }
    return { entries, cursor, more: rows.length === LOG_PAGE_SIZE };
  }

  /** A connection let go of (or given a new outbox) mid-replay gets no more of it, and nothing more is read for it. */
  *#replayPages(connectionId: string, outbox: Outbox, pages: Iterator<string[]>, keep: (frame: string) => boolean): Generator<string[]> {
    while (this.#outboxes.get(connectionId) === outbox) {
      const page = pages.next();
      if (page.done) return;
      yield page.value.filter(keep);
    }
  }

  // --- frames to one connection -----------------------------------------------------

  respond(connectionId: string | null, id: RequestId | null, outcome: { result: unknown } | { error: ErrorResponse }): void {
    if (connectionId === null || !this.#attached.has(connectionId)) return;
    this.send(connectionId, "error" in outcome ? errorFrame(id, outcome.error) : resultFrame(id, outcome.result));
  }

  send(connectionId: string, frame: string): void {
    this.outbox(connectionId).push(frame);
  }

  /** Resolves once everything queued for `connectionId` has been handed over. */
  drained(connectionId: string): Promise<void> {
    return this.outbox(connectionId).drained();
  }

  outbox(connectionId: string): Outbox {
    let outbox = this.#outboxes.get(connectionId);
    if (!outbox || outbox.gone) {
      outbox = new Outbox(this.deliver(connectionId), () => this.detach(connectionId));
      this.#outboxes.set(connectionId, outbox);
    }
    return outbox;
  }
}

function attachment(capabilities: ClientCapabilities, access: AttachmentAccess = { user: null, linkId: null }): Attachment {
  return { capabilities, access, turnEnded: wantsTurnEnded(capabilities) };
}

/** Bounds one RPC's size; a 10,000-update replay goes out in several batches. */
export const MAX_BATCH_FRAMES = 1_000;
/**
 * And by characters: an RPC's arguments are limited to 32 MiB, and a string
 * crosses in at most 2 bytes per character, so big diffs or tool outputs never
 * make a batch the runtime refuses (which would look like a dead connection).
 */
const MAX_BATCH_CHARS = 8 * 1024 * 1024;

export type Deliver = (frames: string[]) => Promise<boolean>;

/**
 * Ordered delivery of frames to one connection (or to a parent session). Frames
 * pushed while a delivery is in flight are batched into the next one, so a fast
 * stream costs one RPC per batch, not per frame, and order is never lost. It
 * also holds pages of frames (a replay), read one at a time only once every
 * frame before them has gone into a batch: what it holds stays about one page
 * and one batch, however long the log.
 */
export class Outbox {
  #queue: (string | Iterator<string[]>)[] = [];
  #flushing: Promise<void> | null = null;
  #gone = false;

  /** @param deliver returns false when the connection no longer has a socket. */
  constructor(
    private readonly deliver: Deliver,
    private readonly onGone: () => void,
  ) {}

  get gone(): boolean {
    return this.#gone;
  }

  push(frame: string): void {
    this.#enqueue(frame);
  }

  /** Queues frames read a page at a time as the outbox reaches them; what is pushed later goes after all of them. */
  pushPages(pages: Iterator<string[]>): void {
    this.#enqueue(pages);
  }

  /** Resolves once everything pushed so far has been handed over (or dropped). */
  async drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  #enqueue(item: string | Iterator<string[]>): void {
    if (this.#gone) return;
    this.#queue.push(item);
    if (!this.#flushing) void this.#run();
  }

  async #run(): Promise<void> {
    // Set here, not by the caller: a run that ends before its first await (a
    // replay with nothing to send) must leave it cleared, or drained() spins.
    let ran!: () => void;
    this.#flushing = new Promise<void>((resolve) => (ran = resolve));
    try {
      for (let batch = this.#nextBatch(); batch.length > 0 && !this.#gone; batch = this.#nextBatch()) {
        // A delivery that throws (an RPC hiccup) is tried once more before the
        // connection counts as gone: letting go of a live one loses its turn's answer.
        // Frames that did arrive the first time come twice, which clients drop (by seq,
        // and a response's id is settled once).
        const ok = (await this.#attempt(batch)) ?? (await this.#attempt(batch)) ?? false;
        if (!ok) {
          this.#gone = true;
          this.#queue = []; // pages not read yet never will be
          this.onGone();
        }
      }
    } finally {
      this.#flushing = null;
      ran();
    }
  }

  /**
   * Takes the next batch off the front of the queue: at least one frame, within
   * both bounds. Pages it reaches are read into the queue in their place.
   */
  #nextBatch(): string[] {
    let count = 0;
    let chars = 0;
    while (count < MAX_BATCH_FRAMES && count < this.#queue.length) {
      const item = this.#queue[count]!;
      if (typeof item !== "string") {
        const page = nextPage(item);
        if (page.done) this.#queue.splice(count, 1);
        else this.#queue.splice(count, 0, ...page.value);
        continue;
      }
      chars += item.length;
      if (chars > MAX_BATCH_CHARS && count > 0) break;
      count++;
    }
    return this.#queue.splice(0, count) as string[];
  }

  /** One delivery: its answer, or undefined when it threw. */
  #attempt(batch: string[]): Promise<boolean | undefined> {
    // The executor turns a synchronous throw (e.g. a bad DO id) into a rejection.
    return new Promise<boolean>((resolve) => resolve(this.deliver(batch))).catch(() => undefined);
  }
}

/** The next page of a replay. One that cannot be read ends the replay there (logged), so what is queued behind it still goes. */
function nextPage(pages: Iterator<string[]>): IteratorResult<string[], undefined> {
  try {
    return pages.next();
  } catch (err) {
    console.error("a page of the update log could not be read; the replay ends there", err);
    return { done: true, value: undefined };
  }
}
