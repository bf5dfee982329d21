/**
 * One turn's context, built once when the turn starts and handed whole to
 * everything the turn runs (its slash command, its compactions, its model
 * loop and tools): the session's record and store, where updates go, the
 * client, the provider, the tools and permission gate, and the limits. The
 * record is read through `record()`, which a turn always has, so nothing on
 * the turn's path reaches into the store for a record that might be missing.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ModelProvider, ModelUsage } from "../agent/model-provider.js";
import type { RetryPolicy } from "../agent/retry.js";
import { contextWindowFor } from "../config.js";
import type { SubagentSpawner } from "../delegate/subagent-spec.js";
import type { AnyTool, ClientPort, ToolContext } from "../tools/tool.js";
import { clientPortFor } from "./client-port.js";
import { stepClient } from "./step-client.js";
import { toolAllowedInMode } from "./modes.js";
import { PermissionGate } from "./permission-gate.js";
import type { SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";
import { providerForTurn } from "./turn-provider.js";
import type { TurnSetup } from "./turn-setup.js";

/** How a sub-agent's task differs from an editor's prompt; each part defaults to the prompt's. */
export interface TurnOverrides {
  client?: ClientPort;
  tools?: AnyTool[];
  systemPrompt?: string;
  maxModelCalls?: number;
  /** Also sees every update the turn logs (a sub-agent relays its tool calls to its parent). */
  observe?(update: SessionUpdate): void;
  /** Labels this turn's permission requests (a sub-agent's name). */
  gateLabel?: string;
  /** Denies, for this reason, what would otherwise be asked. */
  autoDeny?: string;
}

/** What bounds the turn. */
export interface TurnLimits {
  maxModelCalls?: number;
  permissionTimeoutMs: number;
  coalesceMs: number;
  retry?: RetryPolicy;
}

/** What `equip` fixes for the model loop: read once, as the loop starts. */
interface Equipment {
  tools: AnyTool[];
  gate: PermissionGate;
  record: SessionRecord;
  subagents?: SubagentSpawner;
}

export class TurnContext {
  readonly store: SessionStore;
  /** The editor the turn's requests go to (for a sub-agent's task, its parent's editor). */
  readonly client: ClientPort;
  #provider: ModelProvider | null | undefined;
  readonly limits: TurnLimits;
  /** Set by `equip`, once the turn's tools are known. */
  #equipped: Equipment | null = null;
  /** Each tool call's client, shared by its tool and its permission question (`stepClient` numbers their requests). */
  readonly #callClients = new Map<string, ClientPort>();

  constructor(
    /** What the session sets every turn up with. */
    readonly session: TurnSetup,
    readonly connectionId: string | null,
    readonly signal: AbortSignal,
    readonly overrides: TurnOverrides = {},
  ) {
    this.store = session.log.store;
    this.client = overrides.client ?? clientPortFor(session.log, connectionId);
    this.limits = {
      ...(overrides.maxModelCalls ? { maxModelCalls: overrides.maxModelCalls } : {}),
      permissionTimeoutMs: session.permissionTimeoutMs,
      coalesceMs: session.coalesceMs,
      ...(session.retry ? { retry: session.retry } : {}),
    };
  }

  /**
   * Where the turn's model calls go; null when no model is configured. Made
   * when first used: a proxy-hosted upstream is looked up then, as the turn's
   * first model call or `/compress` needs it.
   */
  get provider(): ModelProvider | null {
    if (this.#provider === undefined) {
      // An upstream agent's file requests use the turn's tool context, which exists once the tools are equipped.
      this.#provider = providerForTurn(this.session, this.record(), {
        client: this.client,
        connectionId: this.connectionId,
        toolContext: (signal) => this.toolContext(this.session.newId(), signal),
      });
    }
    return this.#provider;
  }

  /** The session's record as stored now; a turn runs only in a session that has one. */
  record(): SessionRecord {
    const record = this.store.record();
    if (!record) throw new Error("the turn's session has no record");
    return record;
  }

  /** One of the turn's own updates: logged, and seen by the turn's observer (a sub-agent's relay). */
  emit(update: SessionUpdate): void {
    this.session.log.emit(update);
    this.overrides.observe?.(update);
  }

  /** An update about the session rather than the turn's work (a command's reply, a compaction): logged only. */
  announce(update: SessionUpdate): void {
    this.session.log.emit(update);
  }

  newId(): string {
    return this.session.newId();
  }

  countModelCall(usage: ModelUsage | undefined): void {
    this.session.countModelCall(usage);
  }

  /** The context window of the session's model now. */
  contextWindow(): number {
    return contextWindowFor(this.record().model, this.session.settings);
  }

  /** The tools the turn would get now: the override, else those the client allows, after the mode's filter. */
  offeredTools(): AnyTool[] {
    if (this.overrides.tools) return this.overrides.tools;
    const mode = this.record().mode;
    return this.session.tools(clientPortFor(this.session.log, this.connectionId)).filter((tool) => toolAllowedInMode(mode, tool.kind));
  }

  /** Fixes the turn's tools and builds its permission gate, for the record as the model loop found it. */
  equip(tools: AnyTool[], record: SessionRecord): void {
    const { session, store, client, overrides } = this;
    const gate = new PermissionGate({
      sessionId: record.sessionId,
      mode: () => this.record().mode,
      sessionRules: () => this.record().allowRules,
      addSessionRule: (rule) => store.updateRecord({ allowRules: [...new Set([...this.record().allowRules, rule])] }),
      hasTenantRule: (rule) => session.permissionRules.has(record.tenant, record.cwd, rule),
      addTenantRule: (rule) => session.permissionRules.add(record.tenant, record.cwd, rule),
      askClient: async (params, options) => {
        // A restart while the question is open asks it again instead of calling the tool interrupted.
        const toolCallId = (params as { toolCall?: { toolCallId?: string } }).toolCall?.toolCallId;
        if (toolCallId) session.steps.phase(toolCallId, "asking");
        try {
          return await (toolCallId ? this.#callClient(toolCallId) : client).request("session/request_permission", params, options);
        } finally {
          if (toolCallId) session.steps.phase(toolCallId, "started");
        }
      },
      timeoutMs: this.limits.permissionTimeoutMs,
      ...(overrides.gateLabel ? { label: overrides.gateLabel } : {}),
      ...(overrides.autoDeny ? { autoDeny: overrides.autoDeny } : {}),
    });
    const subagents = session.subagents();
    this.#equipped = { tools, gate, record, ...(subagents ? { subagents } : {}) };
  }

  /** The turn's tools, fixed by `equip`. */
  get tools(): AnyTool[] {
    return this.#armed().tools;
  }

  /** What one tool call runs with. */
  toolContext(toolCallId: string, signal: AbortSignal): ToolContext {
    const { gate, record, subagents } = this.#armed();
    return {
      sessionId: record.sessionId,
      tenant: record.tenant,
      owner: record.owner ?? null,
      db: this.session.db,
      cwd: record.cwd,
      additionalDirectories: record.additionalDirectories,
      toolCallId,
      signal,
      client: this.#callClient(toolCallId),
      emit: (update) => this.emit(update),
      gate: (request) => gate.check(request, { toolCallId, signal }),
      ...(subagents ? { subagents } : {}),
    };
  }

  #callClient(toolCallId: string): ClientPort {
    let client = this.#callClients.get(toolCallId);
    if (!client) this.#callClients.set(toolCallId, (client = stepClient(this.client, this.session.steps, toolCallId)));
    return client;
  }

  #armed(): Equipment {
    // Before the model loop (while compacting, say) the turn has no tools to run.
    if (!this.#equipped) throw new Error("no file access while compacting");
    return this.#equipped;
  }
}
