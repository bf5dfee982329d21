/**
 * One Durable Object per ACP session (a sub-agent or a fork is a session too).
 * Entry points and the alarm only: each is one call into `Session`, which
 * owns the session's storage and runs its turns. Connection objects and
 * parent sessions call it through the `SessionRpc` interface.
 */
import type { ErrorResponse, McpMessageParams, RequestId, ShareRole, UpstreamMessage } from "@hermes-edge/protocol";
import { DurableObject } from "cloudflare:workers";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { resultWithoutRun, type SubagentResult } from "../delegate/subagent-result.js";
import type { ForwardedRequest, ForwardOutcome, SubagentCommand, SubagentControlResult, SubagentSpec, SubagentStopCause } from "../delegate/subagent-spec.js";
import type { Env } from "../env.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import type { CreateSessionInit } from "../session/create-session.js";
import type { ForkSnapshot } from "../session/fork.js";
import { Session } from "../session/session.js";
import type { LogPage, OpenOptions, SessionHistory, SessionRpc } from "../session/session-rpc.js";
import { connectionDeliver } from "./connection-deliver.js";
import { answer, guarded, type EntryContext } from "./entry-point.js";
import type { RpcOutcome } from "./rpc-outcome.js";

export const HEARTBEAT_MS = 30_000;
/** How long usage a failed call to the tenant left waits before it is sent again. */
const USAGE_RETRY_MS = 60_000;

export class SessionObject extends DurableObject<Env> implements SessionRpc {
  #session!: Session;
  #running = false;
  /** An alarm is set (by this instance); a restarted instance sets its own on its first turn. */
  #alarmSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => this.#start());
  }

  create(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit): Promise<RpcOutcome<null>> {
    return answer(this.#where("create", conn), () => this.#session.create(conn, requestId, init));
  }

  forkSnapshot(conn: ConnectionRef): Promise<RpcOutcome<ForkSnapshot>> {
    return answer(this.#where("forkSnapshot", conn), () => this.#session.forkSnapshot(conn));
  }

  createFork(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit, snapshot: ForkSnapshot): Promise<RpcOutcome<null>> {
    return answer(this.#where("createFork", conn), () => this.#session.createFork(conn, requestId, init, snapshot));
  }

  open(conn: ConnectionRef, requestId: RequestId, options: OpenOptions): Promise<RpcOutcome<null>> {
    return answer(this.#where("open", conn), () => this.#session.open(conn, requestId, options));
  }

  prompt(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): Promise<RpcOutcome<null>> {
    return answer(this.#where("prompt", conn), () => this.#session.prompt(conn, requestId, prompt));
  }

  setConfig(conn: ConnectionRef, configId: string, value: unknown): Promise<RpcOutcome> {
    return answer(this.#where("setConfig", conn), () => this.#session.setConfig(conn, configId, value));
  }

  cancel(conn: ConnectionRef): Promise<RpcOutcome<null>> {
    return answer(this.#where("cancel", conn), () => this.#session.cancel(conn));
  }

  cancelRequest(conn: ConnectionRef, requestId: RequestId): Promise<void> {
    return guarded(this.#where("cancelRequest", conn), undefined, () => this.#session.cancelRequest(conn, requestId));
  }

  close(conn: ConnectionRef): Promise<RpcOutcome> {
    return answer(this.#where("close", conn), () => this.#session.close(conn));
  }

  destroy(conn: ConnectionRef): Promise<RpcOutcome> {
    return answer(this.#where("destroy", conn), () => this.#session.destroy(conn));
  }

  setTitle(tenant: string, title: string): Promise<RpcOutcome<{ title: string }>> {
    return answer(this.#where("setTitle"), () => this.#session.setTitle(tenant, title));
  }

  clientResponse(connectionId: string, response: { id: string | number; result?: unknown; error?: ErrorResponse }): Promise<boolean> {
    return guarded(this.#where("clientResponse", { connectionId }), false, () => this.#session.clientResponse(connectionId, response));
  }

  detach(connectionId: string): Promise<void> {
    return guarded(this.#where("detach", { connectionId }), undefined, () => this.#session.detach(connectionId));
  }

  logAfter(connectionId: string, afterSeq: number, untilSeq: number): Promise<RpcOutcome<LogPage | null>> {
    return answer(this.#where("logAfter", { connectionId }), () => this.#session.logAfter(connectionId, afterSeq, untilSeq));
  }

  reshare(tenant: string, user: string, shares: { user: string; role: ShareRole }[]): Promise<string[]> {
    return guarded(this.#where("reshare"), [], () => this.#session.reshare(tenant, user, shares));
  }

  upstreamMessage(connectionId: string, params: UpstreamMessage): Promise<void> {
    return guarded(this.#where("upstreamMessage", { connectionId }), undefined, () => this.#session.upstreamMessage(connectionId, params));
  }

  mcpNotification(connectionId: string, params: McpMessageParams): Promise<void> {
    return guarded(this.#where("mcpNotification", { connectionId }), undefined, () => this.#session.mcpNotification(connectionId, params));
  }

  readHistory(tenant: string): Promise<RpcOutcome<SessionHistory>> {
    return answer(this.#where("readHistory"), () => this.#session.readHistory(tenant));
  }

  subagents(tenant: string, command: SubagentCommand): Promise<RpcOutcome<SubagentControlResult>> {
    return answer(this.#where("subagents"), () => this.#session.controlSubagents(tenant, command));
  }

  runSubagentTask(spec: SubagentSpec): Promise<SubagentResult> {
    const failed = resultWithoutRun(spec.taskIndex, spec.subagentId, spec.model, "failed", "The sub-agent's session failed inside the service.");
    return guarded(this.#where("runSubagentTask"), failed, () => this.#session.runSubagentTask(spec));
  }

  interruptSubagentTask(cause: SubagentStopCause): Promise<void> {
    return guarded(this.#where("interruptSubagentTask"), undefined, () => this.#session.interruptSubagentTask(cause));
  }

  forwardEditorRequest(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    const failed: ForwardOutcome = { ok: false, error: { kind: "other", message: "the parent session failed to forward the request" } };
    return guarded(this.#where("forwardEditorRequest"), failed, () => this.#session.forwardEditorRequest(subagentId, request));
  }

  forwardUpstreamMessage(subagentId: string, params: UpstreamMessage): Promise<boolean> {
    return guarded(this.#where("forwardUpstreamMessage"), false, () => this.#session.forwardUpstreamMessage(subagentId, params));
  }

  relaySubagentUpdates(subagentId: string, frames: string[]): Promise<boolean> {
    return guarded(this.#where("relaySubagentUpdates"), false, () => this.#session.relaySubagentUpdates(subagentId, frames));
  }

  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    // A heartbeat while a turn runs; after an eviction the constructor has already recorded the interruption.
    if (this.#running) {
      this.#alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
    }
    await guarded(this.#where("alarm"), undefined, () => this.#session.alarm(this.#running));
  }

  #start(): void {
    this.#session = new Session(this.ctx.storage.sql, this.env, {
      deliver: (connectionId) => connectionDeliver(this.env.CONNECTION, connectionId),
      // The alarm is left to fire once the queue is idle (it then does nothing): setting and deleting it
      // around every turn would be two more storage writes per prompt.
      keepAlive: (running) => {
        this.#running = running;
        if (!running || this.#alarmSet) return;
        this.#alarmSet = true;
        void this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
      },
      retryLater: () => {
        if (this.#alarmSet) return; // a heartbeat comes anyway, and its last one, once idle, sends the usage
        this.#alarmSet = true;
        void this.ctx.storage.setAlarm(Date.now() + USAGE_RETRY_MS);
      },
      wipe: async () => {
        this.#alarmSet = false;
        await this.ctx.storage.deleteAlarm();
        await this.ctx.storage.deleteAll();
        this.#start();
      },
      session: (sessionId) => this.env.SESSION.get(this.env.SESSION.idFromName(sessionId)),
    });
  }

  #where(method: string, conn?: Pick<ConnectionRef, "connectionId">): EntryContext {
    return { class: "SessionObject", method, sessionId: this.#session.store.record()?.sessionId, connectionId: conn?.connectionId };
  }
}
