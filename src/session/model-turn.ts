/**
 * Sets up and runs one model turn for a prompt: the tools the mode and the
 * client allow, the permission gate, the history, and `runTurn` itself.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import type { ChatMessage, ModelProvider } from "../agent/model-provider.js";
import { toUserContent } from "../agent/prompt-content.js";
import type { RetryPolicy } from "../agent/retry.js";
import { systemPrompt } from "../agent/system-prompt.js";
import { runTurn, type TurnOutcome } from "../agent/turn-loop.js";
import type { ModelSettings } from "../config.js";
import type { PermissionRuleStore } from "../db/permission-rules.js";
import type { SegmentIndex } from "../db/segment-index.js";
import { contextWindowFor } from "../config.js";
import { estimateTokens, shouldCompact } from "../agent/compaction.js";
import { compactHistory, type CompactionResult } from "./compactor.js";
import type { AnyTool, ClientPort } from "../tools/tool.js";
import { clientPortFor } from "./client-port.js";
import { toolAllowedInMode } from "./modes.js";
import { memoryForPrompt, withProjectMemory } from "./memory-snapshot.js";
import { MemoryStore } from "../db/memory-store.js";
import { PermissionGate } from "./permission-gate.js";
import type { SessionRuntime } from "./session-runtime.js";
import type { SettingsController } from "./session-settings.js";
import type { DelegatePort } from "../delegate/delegate-port.js";

export interface TurnPorts {
  settings: ModelSettings;
  sessionSettings: SettingsController;
  /** Null when no API key is configured. */
  provider(): ModelProvider | null;
  /** The registry: tools the client's capabilities allow. */
  tools(client: ClientPort): AnyTool[];
  /** Tools for a turn prompted from `connectionId`, after the mode's filter. */
  toolsForTurn(connectionId: string | null): AnyTool[];
  permissionRules: PermissionRuleStore;
  segments: SegmentIndex;
  /** D1 for tools (project memory, session search) and the memory snapshot. */
  db: D1Database;
  permissionTimeoutMs: number;
  newId(): string;
  coalesceMs: number;
  retry?: RetryPolicy;
  /** Spawns sub-agents; undefined (or absent) when this session may not delegate. */
  delegate?(): DelegatePort | undefined;
}

/** How a delegated (sub-agent) turn differs from a prompt turn; each part defaults to the prompt turn's. */
export interface TurnOverrides {
  client?: ClientPort;
  tools?: AnyTool[];
  systemPrompt?: string;
  maxModelCalls?: number;
  /** Where the turn's updates go (default: the session's log and its attached connections). */
  emit?(update: SessionUpdate): void;
  /** Labels this turn's permission requests (a sub-agent's name). */
  gateLabel?: string;
  /** Denies, for this reason, what would otherwise be asked. */
  autoDeny?: string;
}

export const NO_MODEL_MESSAGE =
  "No model is configured for hermes-edge. Set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and HERMES_MODEL) " +
  "in `.dev.vars` for `wrangler dev`, or with `wrangler secret put OPENAI_API_KEY` in production, then send your prompt again.";

export function toolsForTurn(runtime: SessionRuntime, ports: Pick<TurnPorts, "tools">, connectionId: string | null): AnyTool[] {
  const mode = runtime.store.record()!.mode;
  return ports.tools(clientPortFor(runtime, connectionId)).filter((tool) => toolAllowedInMode(mode, tool.kind));
}

export async function runModelTurn(
  runtime: SessionRuntime,
  ports: TurnPorts,
  turn: { prompt: ContentBlock[]; connectionId: string | null; signal: AbortSignal; takeInjected(): ChatMessage[]; overrides?: TurnOverrides },
): Promise<Pick<TurnOutcome, "stopReason"> & Partial<TurnOutcome>> {
  const over = turn.overrides ?? {};
  const emit = over.emit ?? ((update: SessionUpdate) => void runtime.emit(update));
  const { store } = runtime;
  const provider = ports.provider();
  if (!provider) {
    emit(agentMessageChunk(NO_MODEL_MESSAGE, ports.newId()));
    return { stopReason: "end_turn" };
  }
  store.appendHistory({ role: "user", content: toUserContent(turn.prompt) });
  const client = over.client ?? clientPortFor(runtime, turn.connectionId);
  const before = store.record()!;
  const window = contextWindowFor(before.model, ports.settings);
  // Read once per turn (rows are parsed JSON); again only if compaction replaced them.
  let history = store.history();
  if (shouldCompact(Math.max(estimateTokens(history), before.lastUsage ?? 0), window)) {
    await compactHistory({ runtime, provider, segments: ports.segments, client: client.capabilities, newId: ports.newId }, turn.signal, true);
    history = store.history();
  }
  const record = store.record()!;
  const tools = over.tools ?? ports.toolsForTurn(turn.connectionId);
  const memory = over.systemPrompt ? "" : await memoryForPrompt(store, new MemoryStore(ports.db));
  const delegate = ports.delegate?.();
  const gate = new PermissionGate({
    sessionId: record.sessionId,
    mode: () => store.record()!.mode,
    sessionRules: () => store.record()!.allowRules,
    addSessionRule: (rule) => store.updateRecord({ allowRules: [...new Set([...store.record()!.allowRules, rule])] }),
    hasTenantRule: (rule) => ports.permissionRules.has(record.tenant, record.cwd, rule),
    addTenantRule: (rule) => ports.permissionRules.add(record.tenant, record.cwd, rule),
    askClient: (params, options) => client.request("session/request_permission", params, options),
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
    },
    {
      provider,
      emit,
      record: (message) => store.appendHistory(message),
      toolContext: (toolCallId, signal) => ({
        sessionId: record.sessionId,
        tenant: record.tenant,
        db: ports.db,
        cwd: record.cwd,
        additionalDirectories: record.additionalDirectories,
        toolCallId,
        signal,
        client,
        emit,
        gate: (request) => gate.check(request, { toolCallId, signal }),
        ...(delegate ? { delegate } : {}),
      }),
      newId: ports.newId,
      coalesceMs: ports.coalesceMs,
      takeInjected: turn.takeInjected,
      ...(ports.retry ? { retry: ports.retry } : {}),
    },
    turn.signal,
  );
}

/** Compaction on demand (`/compress`), with the same ports as a turn. */
export async function compactNow(
  runtime: SessionRuntime,
  ports: TurnPorts,
  connectionId: string | null,
  signal: AbortSignal,
): Promise<CompactionResult | { status: "no_model" }> {
  const provider = ports.provider();
  if (!provider) return { status: "no_model" };
  const client = clientPortFor(runtime, connectionId).capabilities;
  return compactHistory({ runtime, provider, segments: ports.segments, client, newId: ports.newId }, signal, false);
}
