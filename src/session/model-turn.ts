/**
 * Sets up and runs one model turn: the tools the mode and the client allow,
 * the permission gate, the history, compaction when the context fills up
 * (before the turn and between the model calls of a long tool loop), and
 * `runTurn` itself. A sub-agent's task is the same turn with overrides.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { shouldCompact } from "../agent/compaction.js";
import type { ChatMessage, ModelProvider, ModelToolCall, ModelUsage } from "../agent/model-provider.js";
import { systemPrompt } from "../agent/system-prompt.js";
import { runTurn, type TurnOutcome } from "../agent/turn-loop.js";
import type { AnyTool } from "../tools/tool.js";
import { compactHistory, type CompactionResult } from "./compactor.js";
import { memoryForPrompt, withProjectMemory } from "./memory-snapshot.js";
import type { TurnContext } from "./turn-context.js";
import { decideCall, unansweredCalls } from "./resume-decision.js";
import { ORPHAN_GRACE_MS } from "./update-log.js";

export type TurnResult = Pick<TurnOutcome, "stopReason"> & Partial<TurnOutcome>;

export const NO_MODEL_MESSAGE =
  "No model is configured for hermes-edge. Locally: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and HERMES_MODEL) " +
  "in `.dev.vars`, then restart `npm start` (or `wrangler dev`): `.dev.vars` is read only at start. " +
  "In production: `wrangler secret put OPENAI_API_KEY`. Then send your prompt again.";

export async function runModelTurn(
  ctx: TurnContext,
  turn: {
    prompt: ContentBlock[];
    takeInjected(): ChatMessage[];
    /** A turn a restart cut off: its prompt and completed steps are in the history already. */
    resume?: boolean;
  },
): Promise<TurnResult> {
  const { session, store, overrides: over, provider } = ctx;
  if (!provider) {
    ctx.emit(agentMessageChunk(NO_MODEL_MESSAGE, ctx.newId()));
    return { stopReason: "end_turn" };
  }
  // A prompt read from its row is stored once: the history references the row (prompt-refs.ts).
  if (!turn.resume) store.appendPrompt(turn.prompt);
  const compaction = new CompactionCheck(ctx, provider);
  // Held between turns by the store's history cache; read again only if compaction replaced it.
  await compaction.run(ctx.record().lastUsage ?? 0);
  let history = store.history();
  // The restart came after the model's last answer was stored: the turn only has its ending left.
  if (turn.resume && endsWithAnswer(history)) return { stopReason: "end_turn" };
  // A restart cut the editor's connection too: its tools, its MCP servers and the question a call waited on need it back.
  if (turn.resume && !over.client) await session.log.editorReachable(ORPHAN_GRACE_MS);
  const record = ctx.record();
  await session.mcp?.ready();
  const tools = ctx.offeredTools();
  const pendingCalls = turn.resume ? resumeCalls(ctx, tools, history) : { rerun: [], interrupted: false };
  if (pendingCalls.interrupted) history = store.history();
  const memory = over.systemPrompt ? "" : await memoryForPrompt(store, session.memory);
  ctx.equip(tools, record);
  return runTurn(
    {
      model: record.model,
      messages: [{ role: "system", content: over.systemPrompt ?? withProjectMemory(systemPrompt(record, tools), memory) }, ...history],
      tools,
      reasoningEffort: record.reasoningEffort,
      ...(ctx.limits.maxModelCalls ? { maxModelCalls: ctx.limits.maxModelCalls } : {}),
      ...(pendingCalls.rerun.length ? { pendingCalls: pendingCalls.rerun } : {}),
    },
    {
      provider,
      emit: (update) => ctx.emit(update),
      record: (message) => store.appendHistory(message),
      toolContext: (toolCallId, signal) => ctx.toolContext(toolCallId, signal),
      newId: session.newId,
      coalesceMs: ctx.limits.coalesceMs,
      takeInjected: turn.takeInjected,
      modelCallEnded: session.countModelCall,
      toolStarted: (toolCallId) => session.steps.phase(toolCallId, "started"),
      stepDone: () => session.steps.stepDone(),
      toolCallStarted: session.countToolCall,
      beforeModelCall: async (messages, lastUsage) => {
        if (!(await compaction.run(tokensOf(lastUsage)))) return undefined;
        return [messages[0]!, ...store.history()];
      },
      ...(ctx.limits.retry ? { retry: ctx.limits.retry } : {}),
    },
    ctx.signal,
  );
}

/**
 * The tool calls a restart left without results: those that may run again, in
 * order; the others get an "interrupted" result in the history now.
 */
function resumeCalls(ctx: TurnContext, tools: AnyTool[], history: ChatMessage[]): { rerun: ModelToolCall[]; interrupted: boolean } {
  const phases = ctx.session.steps.running()?.phases ?? {};
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
    ctx.store.appendHistory({ role: "tool", tool_call_id: call.id, content: decision.result });
    ctx.announce({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "failed", content: [{ type: "content", content: { type: "text", text: decision.result } }] });
  }
  return { rerun, interrupted };
}

/** Compaction on demand (`/compress`), in the command's turn. */
export async function compactNow(ctx: TurnContext): Promise<CompactionResult | { status: "no_model" }> {
  const { provider } = ctx;
  if (!provider) return { status: "no_model" };
  return compactHistory(ctx, provider, false);
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
    private readonly ctx: TurnContext,
    private readonly provider: ModelProvider,
  ) {}

  /** True when the history was compacted (and must be read again). The estimate is the store's running count. */
  async run(usedTokens: number): Promise<boolean> {
    const used = this.#usageStale ? 0 : usedTokens;
    this.#usageStale = false;
    const { ctx } = this;
    if (this.#failed || !shouldCompact(Math.max(ctx.store.historyTokens(), used), ctx.contextWindow())) return false;
    const result = await compactHistory(ctx, this.provider, true);
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
