/**
 * The parts of one session wired together: storage, runtime (log, outboxes,
 * attachments), settings, prompt runner. The Durable Object class only adds
 * RPC entry points and alarms; everything here is plain TypeScript.
 */
import type { RequestId } from "@hermes-edge/protocol";
import { OpenAIProvider } from "../agent/openai-provider.js";
import { coalesceMs, delegationSettings, modelSettings, permissionTimeoutMs, type ModelSettings } from "../config.js";
import { PermissionRuleStore } from "../db/permission-rules.js";
import { SegmentIndex } from "../db/segment-index.js";
import { SessionIndex } from "../db/session-index.js";
import { provenance } from "./provenance.js";
import type { Env } from "../env.js";
import { Delegation } from "../delegate/delegation.js";
import { toolsFor } from "../tools/index.js";
import type { ClientPort } from "../tools/tool.js";
import type { ConnectionRef } from "./connection-ref.js";
import { toolsForTurn } from "./model-turn.js";
import type { Deliver } from "./outbox.js";
import { PromptRunner, type PromptPorts } from "./prompt-runner.js";
import type { SessionRecord } from "./session-record.js";
import { SessionRuntime } from "./session-runtime.js";
import { SettingsController } from "./session-settings.js";
import { SessionStore } from "./session-store.js";
import { availableCommands } from "./slash-commands.js";

export interface KernelHost {
  deliver(connectionId: string): Deliver;
  keepAlive(running: boolean): void;
}

export class SessionKernel {
  readonly store: SessionStore;
  readonly index: SessionIndex;
  readonly segments: SegmentIndex;
  readonly settings: ModelSettings;
  readonly runtime: SessionRuntime;
  readonly sessionSettings: SettingsController;
  readonly runner: PromptRunner;
  /** Sub-agents: this session as a parent (spawn, relay, forward) and as a child (its delegated task). */
  readonly delegation: Delegation;

  constructor(sql: SqlStorage, env: Env, host: KernelHost) {
    this.store = new SessionStore(sql);
    this.store.migrate();
    this.index = new SessionIndex(env.DB);
    this.segments = new SegmentIndex(env.DB);
    this.settings = modelSettings(env);
    this.runtime = new SessionRuntime({ store: this.store, deliver: host.deliver, now: Date.now });
    this.sessionSettings = new SettingsController(this.runtime, this.settings.models, (record) =>
      this.#indexUpdate({ mode: record.mode, model: record.model }),
    );
    const settings = this.settings;
    // One client for the object's lifetime: building it per turn is measurable on the first-token path.
    const provider = settings.apiKey ? new OpenAIProvider({ baseURL: settings.baseURL, apiKey: settings.apiKey }) : null;
    // `delegate_task` is in the registry only while this session may delegate.
    const tools = (client: ClientPort) => toolsFor(client, { canDelegate: this.delegation.canDelegate() });
    const ports: PromptPorts = {
      settings,
      sessionSettings: this.sessionSettings,
      provider: () => provider,
      tools,
      toolsForTurn: (connectionId) => toolsForTurn(this.runtime, { tools }, connectionId),
      permissionRules: new PermissionRuleStore(env.DB),
      segments: this.segments,
      permissionTimeoutMs: permissionTimeoutMs(env),
      newId: () => crypto.randomUUID(),
      coalesceMs: coalesceMs(env),
      keepAlive: host.keepAlive,
      onTitle: (title) => this.#indexUpdate({ title }),
      onTurnEnd: () => this.#indexUpdate({}),
      delegate: () => this.delegation.port(),
    };
    this.runner = new PromptRunner(this.runtime, ports);
    this.delegation = new Delegation({
      runtime: this.runtime,
      index: this.index,
      segments: this.segments,
      settings,
      delegation: delegationSettings(env),
      turn: ports,
      sessions: env.SESSION,
      keepAlive: host.keepAlive,
      newId: () => crypto.randomUUID(),
      now: Date.now,
    });
    if (this.store.record()) this.runner.recoverInterrupted();
  }

  async open(
    conn: ConnectionRef,
    requestId: RequestId,
    options: { replay: boolean; afterSeq: number | undefined; cwd: string; additionalDirectories?: string[] },
  ): Promise<null> {
    const { sessionId } = this.runtime.own(conn);
    // ACP: the roots a load/resume names are the complete set; omitted means none.
    const roots = { cwd: options.cwd, additionalDirectories: options.additionalDirectories ?? [] };
    // Index first, so a list right after the response agrees; no await may come between attach and replay.
    await this.index.update(sessionId, { status: "active", ...roots, updatedAt: Date.now() });
    this.runtime.attach(conn);
    const { lineage } = this.store.updateRecord({ status: "active", ...roots });
    const outbox = this.runtime.outbox(conn.connectionId);
    if (options.replay || options.afterSeq !== undefined) {
      for (const page of this.store.logAfter(options.afterSeq ?? 0)) for (const frame of page) outbox.push(frame);
    }
    const meta = { hermes: { turn: this.runner.turnState(), sessionProvenance: provenance(sessionId, lineage) } };
    await this.answerOpen(conn, requestId, { _meta: meta }, !options.replay);
    return null;
  }

  /**
   * The response to new/load/resume (with modes and config options), then the
   * command list. Like every update it is logged with a seq; a load replays the
   * one logged at creation, so only new and resume log another (for this client only).
   */
  async answerOpen(conn: ConnectionRef, requestId: RequestId, result: Record<string, unknown>, sendCommands = true): Promise<void> {
    this.runtime.respond(conn.connectionId, requestId, { result: { ...result, ...this.sessionSettings.sessionState() } });
    if (sendCommands) {
      this.runtime.emit({ sessionUpdate: "available_commands_update", availableCommands: availableCommands() }, { only: conn.connectionId });
    }
    this.runtime.resendOrphaned(conn.connectionId);
    await this.runtime.outbox(conn.connectionId).drained();
  }

  /** Cancels the turn, answers queued prompts and lets every connection go (close and delete). */
  async stop(conn: ConnectionRef): Promise<SessionRecord> {
    const record = this.runtime.own(conn);
    this.runner.cancelAll();
    await this.runner.idle();
    this.runtime.detachAll();
    return record;
  }

  #indexUpdate(patch: Parameters<SessionIndex["update"]>[1]): void {
    const record = this.store.record();
    if (!record) return;
    this.index.update(record.sessionId, { ...patch, updatedAt: Date.now() }).catch((err) => console.error("session index update failed", err));
  }
}
