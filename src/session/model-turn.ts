/**
 * Sets up and runs one model turn: the tools the mode and the client allow,
 * the permission gate, the history, compaction when the context fills up
 * (before the turn and between the model calls of a long tool loop), and
 * `runTurn` itself. A sub-agent's task is the same turn with overrides.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { shouldCompact } from "../agent/compaction.js";
import type { ChatMessage, ModelProvider, ModelToolCall, ModelUsage } from "../agent/model-provider.js";
import type { RetryPolicy } from "../agent/retry.js";
import { systemPrompt } from "../agent/system-prompt.js";
import { runTurn, type TurnOutcome } from "../agent/turn-loop.js";
import { contextWindowFor, type ModelSettings } from "../config.js";
import type { PermissionRuleStore } from "../db/permission-rules.js";
import type { SegmentIndex } from "../db/segment-index.js";
import type { SubagentSpawner } from "../delegate/subagent-spec.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { AnyTool, ClientPort, ToolContext } from "../tools/tool.js";
import { clientPortFor } from "./client-port.js";
import type { MemoryStore } from "../db/memory-store.js";
import { compactHistory, type CompactionResult } from "./compactor.js";
import { memoryForPrompt, withProjectMemory } from "./memory-snapshot.js";
import { toolAllowedInMode } from "./modes.js";
import { PermissionGate } from "./permission-gate.js";
import { providerForTurn, type UpstreamPorts } from "./turn-provider.js";
import type { UpdateLog } from "./update-log.js";
import { decideCall, unansweredCalls } from "./resume-decision.js";
import type { TurnSteps } from "./turn-steps.js";

/** What every turn of a session uses; built once per session object. */
export interface TurnPorts {
  log: UpdateLog;
  settings: ModelSettings;
  /** Null when no API key is configured. */
  provider: ModelProvider | null;
  /** The tools the client's capabilities (and the session's right to delegate) allow, before the mode's filter. */
  tools(client: ClientPort): AnyTool[];
  permissionRules: PermissionRuleStore;
  segments: SegmentIndex;
  /** D1 for tools (project memory, session search). */
  db: D1Database;
  /** The project memory the system prompt's snapshot is read from (one per session object). */
  memory: MemoryStore;
  permissionTimeoutMs: number;
  coalesceMs: number;
  newId(): string;
  /** Counts a model call and its tokens towards the tenant's usage as soon as it ends, so a turn cut short still counts it. */
  countModelCall(usage: ModelUsage | undefined): void;
  /** Counts a tool call towards the tenant's usage as it starts, for the same reason. */
  countToolCall(): void;
  retry?: RetryPolicy;
  /** Spawns sub-agents; undefined when this session may not delegate. */
  subagents(): SubagentSpawner | undefined;
  /** Upstream ACP agents, the `acp:<id>` models (`turn-provider.ts`). */
  upstreams?: UpstreamPorts;
  /** The attached editors' MCP servers; a turn waits for those still connecting. */
  mcp?: McpServers;
  /** The running turn's step record (what a restarted object resumes from). */
  steps: TurnSteps;
}

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

export type TurnResult = Pick<TurnOutcome, "stopReason"> & Partial<TurnOutcome>;

export const NO_MODEL_MESSAGE =
  "No model is configured for hermes-edge. Locally: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and HERMES_MODEL) " +
  "in `.dev.vars`, then restart `npm start` (or `wrangler dev`): `.dev.vars` is read only at start. " +
  "In production: `wrangler secret put OPENAI_API_KEY`. Then send your prompt again.";

/** The tools a turn prompted from `connectionId` gets, after the mode's filter. */
export function toolsForTurn(ports: Pick<TurnPorts, "log" | "tools">, connectionId: string | null): AnyTool[] {
  const mode = ports.log.store.record()!.mode;
  return ports.tools(clientPortFor(ports.log, connectionId)).filter((tool) => toolAllowedInMode(mode, tool.kind));
}

export async function runModelTurn(
  ports: TurnPorts,
  turn: {
    prompt: ContentBlock[];
    connectionId: string | null;
    signal: AbortSignal;
    takeInjected(): ChatMessage[];
    overrides?: TurnOverrides | undefined;
    /** A turn a restart cut off: its prompt and completed steps are in the history already. */
    resume?: boolean;
  },
): Promise<TurnResult> {
  const over = turn.overrides ?? {};
  const { log } = ports;
  const { store } = log;
  const emit = (update: SessionUpdate) => {
    log.emit(update);
    over.observe?.(update);
  };
  const client = over.client ?? clientPortFor(log, turn.connectionId);
  // An upstream agent's file requests use the turn's tool context (set below, before any model call).
  let toolContext: ((toolCallId: string, signal: AbortSignal) => ToolContext) | undefined;
  const provider = providerForTurn(ports, store.record()!, { client, connectionId: turn.connectionId, toolContext: (signal) => toolContext!(ports.newId(), signal) });
  if (!provider) {
    emit(agentMessageChunk(NO_MODEL_MESSAGE, ports.newId()));
    return { stopReason: "end_turn" };
  }
  // A prompt read from its row is stored once: the history references the row (prompt-refs.ts).
  if (!turn.resume) store.appendPrompt(turn.prompt);
  const compaction = new CompactionCheck(ports, provider, client, turn.signal);
  // Held between turns by the store's history cache; read again only if compaction replaced it.
  await compaction.run(store.record()!.lastUsage ?? 0);
  let history = store.history();
  // The restart came after the model's last answer was stored: the turn only has its ending left.
  if (turn.resume && endsWithAnswer(history)) return { stopReason: "end_turn" };
  const record = store.record()!;
  await ports.mcp?.ready();
  const tools = over.tools ?? toolsForTurn(ports, turn.connectionId);
  const pendingCalls = turn.resume ? resumeCalls(ports, tools, history) : { rerun: [], interrupted: false };
  if (pendingCalls.interrupted) history = store.history();
  const memory = over.systemPrompt ? "" : await memoryForPrompt(store, ports.memory);
  const subagents = ports.subagents();
  const gate = new PermissionGate({
    sessionId: record.sessionId,
    mode: () => store.record()!.mode,
    sessionRules: () => store.record()!.allowRules,
    addSessionRule: (rule) => store.updateRecord({ allowRules: [...new Set([...store.record()!.allowRules, rule])] }),
    hasTenantRule: (rule) => ports.permissionRules.has(record.tenant, record.cwd, rule),
    addTenantRule: (rule) => ports.permissionRules.add(record.tenant, record.cwd, rule),
    askClient: async (params, options) => {
      // A restart while the question is open asks it again instead of calling the tool interrupted.
      const toolCallId = (params as { toolCall?: { toolCallId?: string } }).toolCall?.toolCallId;
      if (toolCallId) ports.steps.phase(toolCallId, "asking");
      try {
        return await client.request("session/request_permission", params, options);
      } finally {
        if (toolCallId) ports.steps.phase(toolCallId, "started");
      }
    },
    timeoutMs: ports.permissionTimeoutMs,
    ...(over.gateLabel ? { label: over.gateLabel } : {}),
    ...(over.autoDeny ? { autoDeny: over.autoDeny } : {}),
  });
  return runTurn(
    {
      model: record.model,
      messages: [{ role: "system", content: over.systemPrompt ?? withProjectMemory(systemPrompt(record, tools), memory) }, ...history],
      tools,
      reasoningEffort: record.reasoningEffort,
      ...(over.maxModelCalls ? { maxModelCalls: over.maxModelCalls } : {}),
      ...(pendingCalls.rerun.length ? { pendingCalls: pendingCalls.rerun } : {}),
    },
    {
      provider,
      emit,
      record: (message) => store.appendHistory(message),
      toolContext: (toolContext = (toolCallId, signal) => ({
        sessionId: record.sessionId,
        tenant: record.tenant,
        owner: record.owner ?? null,
        db: ports.db,
        cwd: record.cwd,
        additionalDirectories: record.additionalDirectories,
        toolCallId,
        signal,
        client,
        emit,
        gate: (request) => gate.check(request, { toolCallId, signal }),
        ...(subagents ? { subagents } : {}),
      })),
      newId: ports.newId,
      coalesceMs: ports.coalesceMs,
      takeInjected: turn.takeInjected,
      modelCallEnded: ports.countModelCall,
      toolStarted: (toolCallId) => ports.steps.phase(toolCallId, "started"),
      stepDone: () => ports.steps.stepDone(),
      toolCallStarted: ports.countToolCall,
      beforeModelCall: async (messages, lastUsage) => {
        if (!(await compaction.run(tokensOf(lastUsage)))) return undefined;
        return [messages[0]!, ...store.history()];
      },
      ...(ports.retry ? { retry: ports.retry } : {}),
    },
    turn.signal,
  );
}

/**
 * The tool calls a restart left without results: those that may run again, in
 * order; the others get an "interrupted" result in the history now.
 */
function resumeCalls(ports: TurnPorts, tools: AnyTool[], history: ChatMessage[]): { rerun: ModelToolCall[]; interrupted: boolean } {
  const phases = ports.steps.running()?.phases ?? {};
  const rerun: ModelToolCall[] = [];
  let interrupted = false;
  for (const call of unansweredCalls(history)) {
    const tool = tools.find((t) => t.name === call.name);
    const decision = decideCall({ id: call.id, name: call.name, kind: tool?.kind, external: tool?.parameters !== undefined, resumable: tool?.resumable === true, phase: phases[call.id] ?? null });
    if (decision.action === "rerun") {
      rerun.push(call);
      continue;
    }
    interrupted = true;
    ports.log.store.appendHistory({ role: "tool", tool_call_id: call.id, content: decision.result });
    ports.log.emit({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "failed", content: [{ type: "content", content: { type: "text", text: decision.result } }] });
  }
  return { rerun, interrupted };
}

/** Compaction on demand (`/compress`), with the same ports as a turn. */
export async function compactNow(ports: TurnPorts, connectionId: string | null, signal: AbortSignal): Promise<CompactionResult | { status: "no_model" }> {
  const port = clientPortFor(ports.log, connectionId);
  const noFiles = () => {
    throw new Error("no file access while compacting");
  };
  const provider = providerForTurn(ports, ports.log.store.record()!, { client: port, connectionId, toolContext: noFiles });
  if (!provider) return { status: "no_model" };
  const compaction = { log: ports.log, provider, segments: ports.segments, client: port.capabilities, newId: ports.newId, countModelCall: ports.countModelCall };
  return compactHistory(compaction, signal, false);
}

/**
 * Compacts when the context passes the threshold, at most until it fails once
 * in a turn (a failing summary would otherwise cost a model call per step).
 */
class CompactionCheck {
  #failed = false;
  /** After a compaction the last call's usage describes the old, longer context. */
  #usageStale = false;

  constructor(
    private readonly ports: TurnPorts,
    private readonly provider: ModelProvider,
    private readonly client: ClientPort,
    private readonly signal: AbortSignal,
  ) {}

  /** True when the history was compacted (and must be read again). The estimate is the store's running count. */
  async run(usedTokens: number): Promise<boolean> {
    const used = this.#usageStale ? 0 : usedTokens;
    this.#usageStale = false;
    const { log } = this.ports;
    const window = contextWindowFor(log.store.record()!.model, this.ports.settings);
    if (this.#failed || !shouldCompact(Math.max(log.store.historyTokens(), used), window)) return false;
    const { segments, newId, countModelCall } = this.ports;
    const ports = { log, provider: this.provider, segments, client: this.client.capabilities, newId, countModelCall };
    const result = await compactHistory(ports, this.signal, true);
    if (result.status !== "completed") {
      this.#failed = result.status === "failed";
      return false;
    }
    this.#usageStale = true;
    return true;
  }
}

function endsWithAnswer(history: ChatMessage[]): boolean {
  const last = history.at(-1);
  return last?.role === "assistant" && !last.tool_calls?.length;
}

function tokensOf(usage: ModelUsage | undefined): number {
  return usage ? usage.promptTokens + usage.completionTokens : 0;
}
