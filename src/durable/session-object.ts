/**
 * One Durable Object per ACP session (a sub-agent or a fork is a session too).
 * It owns the session's storage and runs its turns; the connection objects
 * call these RPC methods and the session answers through its outboxes.
 */
import { DurableObject } from "cloudflare:workers";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { JsonRpcErrorBody } from "../acp/errors.js";
import type { JsonRpcId } from "../acp/jsonrpc.js";
import { OpenAIProvider } from "../agent/openai-provider.js";
import { coalesceMs, modelSettings } from "../config.js";
import { SessionIndex } from "../db/session-index.js";
import type { Env } from "../env.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import { PromptRunner } from "../session/prompt-runner.js";
import { createSession, type CreateSessionInit } from "../session/create-session.js";
import { SessionRuntime } from "../session/session-runtime.js";
import { SessionStore } from "../session/session-store.js";
import { toolsFor } from "../tools/index.js";
import { outcomeOf, type RpcOutcome } from "./rpc-outcome.js";

const HEARTBEAT_MS = 30_000;

export class SessionObject extends DurableObject<Env> {
  #store!: SessionStore;
  #runtime!: SessionRuntime;
  #runner!: PromptRunner;
  #running = false;
  readonly #index: SessionIndex;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#index = new SessionIndex(env.DB);
    void ctx.blockConcurrencyWhile(async () => this.#ready());
  }

  #ready(): void {
    this.#store = new SessionStore(this.ctx.storage.sql);
    this.#store.migrate();
    const settings = modelSettings(this.env);
    this.#runtime = new SessionRuntime(
      {
        store: this.#store,
        index: this.#index,
        deliver: (connectionId) => (frames) => this.env.CONNECTION.get(this.env.CONNECTION.idFromString(connectionId)).deliver(frames),
        now: Date.now,
      },
    );
    this.#runner = new PromptRunner(this.#runtime, {
      settings,
      provider: () => (settings.apiKey ? new OpenAIProvider({ baseURL: settings.baseURL, apiKey: settings.apiKey }) : null),
      tools: (client) => toolsFor(client),
      newId: () => crypto.randomUUID(),
      coalesceMs: coalesceMs(this.env),
      keepAlive: (running) => this.#keepAlive(running),
      onTitle: (title) => this.#indexUpdate({ title }),
      onTurnEnd: () => this.#indexUpdate({}),
    });
    if (this.#store.record()) this.#runner.recoverInterrupted();
  }

  /** `session/new`; the response goes out through the outbox so later updates follow it. */
  create(conn: ConnectionRef, requestId: JsonRpcId, init: CreateSessionInit): Promise<RpcOutcome<null>> {
    return outcomeOf(async () => {
      const result = await createSession(this.#store, this.#index, conn, init, modelSettings(this.env));
      this.#runtime.attach(conn);
      this.#runtime.respond(conn.connectionId, requestId, { result });
      await this.#runtime.outbox(conn.connectionId).drained();
      return null;
    });
  }

  open(
    conn: ConnectionRef,
    requestId: JsonRpcId,
    options: { replay: boolean; afterSeq: number | undefined; cwd: string; additionalDirectories?: string[] },
  ): Promise<RpcOutcome<null>> {
    return outcomeOf(async () => {
      const result = { _meta: { hermes: { turn: this.#runner.turnState() } } };
      await this.#runtime.open(conn, requestId, options, result);
      this.#indexUpdate({ status: "active", cwd: options.cwd });
      return null;
    });
  }

  prompt(conn: ConnectionRef, requestId: JsonRpcId, prompt: ContentBlock[]): Promise<RpcOutcome<null>> {
    return outcomeOf(() => {
      this.#runner.enqueue(conn, requestId, prompt);
      return null;
    });
  }

  cancel(conn: ConnectionRef): Promise<RpcOutcome<null>> {
    return outcomeOf(() => {
      this.#runtime.ownAttached(conn);
      this.#runner.cancelAll();
      return null;
    });
  }

  cancelRequest(conn: ConnectionRef, requestId: JsonRpcId): void {
    if (this.#runtime.isAttached(conn.connectionId)) this.#runner.cancelRequest(conn.connectionId, requestId);
  }

  /** `session/close`: the turn stops, connections are let go, history stays. */
  close(conn: ConnectionRef): Promise<RpcOutcome> {
    return outcomeOf(async () => {
      this.#runtime.own(conn);
      this.#runner.cancelAll();
      await this.#runner.idle();
      this.#runtime.detachAll();
      this.#store.updateRecord({ status: "closed" });
      await this.#index.update(this.#store.record()!.sessionId, { status: "closed", updatedAt: Date.now() });
      return {};
    });
  }

  /** `session/delete`: the session's storage and its index row are removed. */
  destroy(conn: ConnectionRef): Promise<RpcOutcome> {
    return outcomeOf(async () => {
      const { sessionId } = this.#runtime.own(conn);
      this.#runner.cancelAll();
      await this.#runner.idle();
      this.#runtime.detachAll();
      await this.#index.delete(sessionId);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.#ready();
      return {};
    });
  }

  clientResponse(connectionId: string, response: { id: string | number; result?: unknown; error?: JsonRpcErrorBody }): boolean {
    return this.#runtime.requests.settle(connectionId, response);
  }

  detach(connectionId: string): void {
    this.#runtime.detach(connectionId);
  }

  override async alarm(): Promise<void> {
    // A heartbeat while a turn runs; after an eviction the constructor has already recorded the interruption.
    if (this.#running) await this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  #keepAlive(running: boolean): void {
    this.#running = running;
    void (running ? this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS) : this.ctx.storage.deleteAlarm());
  }

  #indexUpdate(patch: Parameters<SessionIndex["update"]>[1]): void {
    const record = this.#store.record();
    if (!record) return;
    this.#index.update(record.sessionId, { ...patch, updatedAt: Date.now() }).catch((err) => console.error("session index update failed", err));
  }
}
