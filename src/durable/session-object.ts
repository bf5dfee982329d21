/**
 * One Durable Object per ACP session (a sub-agent or a fork is a session too).
 * It owns the session's storage and runs its turns; connection objects call
 * these RPC methods and the session answers through its outboxes, in order.
 */
import { DurableObject } from "cloudflare:workers";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ErrorResponse, RequestId } from "@hermes-edge/protocol";
import type { Env } from "../env.js";
import type { ChatMessage } from "../agent/model-provider.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import { createSession, type CreateSessionInit } from "../session/create-session.js";
import { SessionKernel } from "../session/session-kernel.js";
import { completedBoundary, importSnapshot, takeSnapshot, type ForkSnapshot } from "../session/fork.js";
import { outcomeOf, type RpcOutcome } from "./rpc-outcome.js";
import type { ChildResult } from "../delegate/child-result.js";
import type { ChildSpec, ForwardedRequest, ForwardOutcome } from "../delegate/delegate-port.js";
import type { SubagentCommand, SubagentControlResult } from "../delegate/delegation.js";

const HEARTBEAT_MS = 30_000;

export interface OpenOptions {
  replay: boolean;
  afterSeq: number | undefined;
  cwd: string;
  additionalDirectories?: string[];
}

export class SessionObject extends DurableObject<Env> {
  #kernel!: SessionKernel;
  #running = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => this.#ready());
  }

  #ready(): void {
    this.#kernel = new SessionKernel(this.ctx.storage.sql, this.env, {
      deliver: (connectionId) => (frames) => this.env.CONNECTION.get(this.env.CONNECTION.idFromString(connectionId)).deliver(frames),
      keepAlive: (running) => this.#keepAlive(running),
    });
  }

  /** `session/new`; the response goes out through the outbox so later updates follow it. */
  create(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit): Promise<RpcOutcome<null>> {
    return outcomeOf(async () => {
      const k = this.#kernel;
      const result = await createSession(k.store, k.index, k.segments, conn, init, k.settings);
      k.runtime.attach(conn);
      await k.answerOpen(conn, requestId, result);
      return null;
    });
  }

  /** The source side of `session/fork`: everything up to the last completed turn. */
  forkSnapshot(conn: ConnectionRef): Promise<RpcOutcome<ForkSnapshot>> {
    return outcomeOf(() => {
      this.#kernel.runtime.own(conn);
      return takeSnapshot(this.#kernel.store, completedBoundary(this.#kernel.store, this.#kernel.runner.runningTurnStart()));
    });
  }

  /** The new side of `session/fork`: a session made from the snapshot, answered like `session/new`. */
  createFork(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit, snapshot: ForkSnapshot): Promise<RpcOutcome<null>> {
    return outcomeOf(async () => {
      const k = this.#kernel;
      const source = snapshot.record;
      const result = await createSession(k.store, k.index, k.segments, conn, {
        ...init,
        kind: "fork",
        parentId: source.sessionId,
        rootId: source.rootId,
        model: source.model,
        mode: source.mode,
        parentLineage: source.lineage,
      }, k.settings);
      const title = source.title ? `Fork: ${source.title}` : null;
      k.store.updateRecord({ reasoningEffort: source.reasoningEffort, title });
      if (title) await k.index.update(init.sessionId, { title });
      importSnapshot(k.store, snapshot, init.sessionId);
      k.runtime.attach(conn);
      await k.answerOpen(conn, requestId, result);
      return null;
    });
  }

  /** `session/load` (full replay) and `session/resume` (replay only after `afterSeq`, if given). */
  open(conn: ConnectionRef, requestId: RequestId, options: OpenOptions): Promise<RpcOutcome<null>> {
    return outcomeOf(() => this.#kernel.open(conn, requestId, options));
  }

  prompt(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): Promise<RpcOutcome<null>> {
    return outcomeOf(() => {
      this.#kernel.runtime.ownAttached(conn);
      this.#kernel.delegation.assertTakesPrompts();
      this.#kernel.runner.enqueue(conn, requestId, prompt);
      return null;
    });
  }

  /** `session/set_mode`, `session/set_config_option` and the legacy `session/set_model`. */
  setConfig(conn: ConnectionRef, configId: string, value: unknown): Promise<RpcOutcome> {
    return outcomeOf(() => {
      this.#kernel.runtime.ownAttached(conn);
      return { configOptions: this.#kernel.sessionSettings.set(configId, value) };
    });
  }

  cancel(conn: ConnectionRef): Promise<RpcOutcome<null>> {
    return outcomeOf(() => {
      this.#kernel.runtime.ownAttached(conn);
      this.#kernel.runner.cancelAll();
      this.#kernel.delegation.child.interrupt("interrupted");
      return null;
    });
  }

  cancelRequest(conn: ConnectionRef, requestId: RequestId): void {
    if (this.#kernel.runtime.isAttached(conn.connectionId)) this.#kernel.runner.cancelRequest(conn.connectionId, requestId);
  }

  /** `session/close`: the turn stops, connections are let go, history stays. */
  close(conn: ConnectionRef): Promise<RpcOutcome> {
    return outcomeOf(async () => {
      await this.#kernel.stop(conn);
      const record = this.#kernel.store.updateRecord({ status: "closed" });
      await this.#kernel.index.update(record.sessionId, { status: "closed", updatedAt: Date.now() });
      return {};
    });
  }

  /** `session/delete`: the session's storage and its index row are removed. */
  destroy(conn: ConnectionRef): Promise<RpcOutcome> {
    return outcomeOf(async () => {
      const { sessionId } = await this.#kernel.stop(conn);
      await this.#kernel.index.delete(sessionId);
      await this.#kernel.segments.deleteForSession(sessionId);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.#ready();
      return {};
    });
  }

  /** Every stored message, all segments included, for `GET /v1/sessions/:id/history`. */
  readHistory(tenant: string): Promise<RpcOutcome<{ sessionId: string; currentSegment: number; messages: { segment: number; message: ChatMessage }[] }>> {
    return outcomeOf(() => {
      const record = this.#kernel.runtime.own({ tenant });
      return { sessionId: record.sessionId, currentSegment: record.segment, messages: this.#kernel.store.allHistory() };
    });
  }

  clientResponse(connectionId: string, response: { id: string | number; result?: unknown; error?: ErrorResponse }): boolean {
    return this.#kernel.runtime.isAttached(connectionId) && this.#kernel.runtime.requests.settle(response);
  }

  /** Child side: runs one delegated task in this sub-agent session (called by the parent session object). */
  runChild(spec: ChildSpec): Promise<ChildResult> {
    return this.#kernel.delegation.runChild(spec);
  }

  interruptChild(cause: "interrupted" | "timeout"): void {
    this.#kernel.delegation.child.interrupt(cause);
  }

  /** Parent side: a child's editor request, sent over this session's connection. */
  forwardClientRequest(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    return this.#kernel.delegation.forward(subagentId, request);
  }

  relayChildUpdates(subagentId: string, frames: string[]): boolean {
    return this.#kernel.delegation.relay(subagentId, frames);
  }

  /** `_hermes/subagents/interrupt|pause|resume` and their REST twins. */
  subagents(tenant: string, command: SubagentCommand): Promise<RpcOutcome<SubagentControlResult>> {
    return outcomeOf(() => {
      this.#kernel.runtime.own({ tenant });
      return this.#kernel.delegation.control(command);
    });
  }

  detach(connectionId: string): void {
    this.#kernel.runtime.detach(connectionId);
  }

  override async alarm(): Promise<void> {
    // A heartbeat while a turn runs; after an eviction the constructor has already recorded the interruption.
    if (this.#running) await this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  #keepAlive(running: boolean): void {
    this.#running = running;
    void (running ? this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS) : this.ctx.storage.deleteAlarm());
  }
}
