/**
 * One prompt turn: ask the model, stream its answer, run the tools it calls,
 * feed their results back, and repeat until it stops or a limit is reached.
 * Pure of Durable Objects: everything it touches arrives through `TurnDeps`.
 */
import type { SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import { agentMessageChunk, agentThoughtChunk } from "../acp/updates.js";
import { ChunkCoalescer } from "./chunk-coalescer.js";
import type { ChatMessage, ModelProvider, ModelResult, ModelToolCall, ModelUsage } from "./model-provider.js";
import { DEFAULT_RETRY, retryDelayMs, shouldRetry, sleep, type RetryPolicy } from "./retry.js";
import { NOT_RUN_CANCELLED, runToolBatch } from "./tool-batch.js";
import { toolSpecs } from "./tool-runner.js";
import type { AnyTool, ToolContext } from "../tools/tool.js";

export const DEFAULT_MAX_MODEL_CALLS = 50;

export interface TurnInput {
  model: string;
  /** System prompt and history, this turn's user message included. */
  messages: ChatMessage[];
  tools: AnyTool[];
  maxModelCalls?: number;
  reasoningEffort?: "low" | "medium" | "high";
  /**
   * A resumed turn: tool calls of the last model message that a restart left
   * without results and that may run again. They run before the first model call.
   */
  pendingCalls?: ModelToolCall[];
}

export interface TurnDeps {
  provider: ModelProvider;
  /** Persists and delivers one update. */
  emit(update: SessionUpdate): void;
  /** Appends a message to the session's model history. */
  record(message: ChatMessage): void;
  toolContext(toolCallId: string, signal: AbortSignal): ToolContext;
  newId(): string;
  coalesceMs?: number;
  retry?: RetryPolicy;
  /** Messages to add before the next model call (e.g. `/steer` guidance). */
  takeInjected?(): ChatMessage[];
  /**
   * Called before every model call after the first with the messages so far and
   * the tokens the last call used; returns replacement messages when it
   * compacted the history (a long tool loop can outgrow the context window).
   */
  beforeModelCall?(messages: ChatMessage[], lastUsage: ModelUsage | undefined): Promise<ChatMessage[] | undefined>;
  /** A model call ended (whatever its outcome), with what it used: counted at once, so a turn cut short still counts it. */
  modelCallEnded?(usage: ModelUsage | undefined): void;
  /**
   * A tool call is about to run: counted at once, so a turn cut short still
   * counts it. Called in the same synchronous stretch as the history write
   * before it (the model's message or the previous tool's result), so its
   * write joins theirs.
   */
  toolCallStarted?(): void;
  /** A tool call is about to run (the turn's step record); `stepDone` once a model message's calls all have results. */
  toolStarted?(toolCallId: string): void;
  stepDone?(): void;
  /** Observes progress (model call started, tool started/finished) for live status. */
  onProgress?(event: { type: "model_call"; n: number } | { type: "tool"; name: string; phase: "start" | "end" }): void;
}

export interface TurnOutcome {
  /** How the turn stopped; null when it failed (then `error` says why): a failure is never a stop reason. */
  stopReason: StopReason | null;
  /** The last model call's usage: how full the context is. */
  usage: ModelUsage | undefined;
  /** Summed over every model call of the turn: what it cost. */
  totalUsage: ModelUsage;
  modelCalls: number;
  /** Tool calls run (a tool called twice counts twice). */
  toolCalls: number;
  toolsUsed: string[];
  /** Set (with a null stop reason) when the model could not be reached; the conversation already says why. */
  error?: { code: number; message: string };
}

export async function runTurn(input: TurnInput, deps: TurnDeps, signal: AbortSignal): Promise<TurnOutcome> {
  let messages = [...input.messages];
  const maxCalls = input.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS;
  const specs = toolSpecs(input.tools);
  const toolsUsed = new Set<string>();
  let usage: ModelUsage | undefined;
  const totalUsage: ModelUsage = { promptTokens: 0, completionTokens: 0 };
  const outcome = (stopReason: StopReason | null, extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
    stopReason,
    usage,
    totalUsage,
    modelCalls: calls,
    toolCalls: toolCallsRun,
    toolsUsed: [...toolsUsed],
    ...extra,
  });
  const push = (message: ChatMessage) => {
    messages.push(message);
    deps.record(message);
  };

  let calls = 0;
  let toolCallsRun = 0;
  /** One model message's tool calls, in order; false when the turn was cancelled among them. */
  const runCalls = async (toolCalls: ModelToolCall[]): Promise<boolean> => {
    await runToolBatch(toolCalls, input.tools, deps, signal, {
      started: (call) => {
        toolsUsed.add(call.name);
        toolCallsRun += 1;
        deps.toolStarted?.(call.id);
        deps.toolCallStarted?.();
        deps.onProgress?.({ type: "tool", name: call.name, phase: "start" });
      },
      ended: (call) => deps.onProgress?.({ type: "tool", name: call.name, phase: "end" }),
      deliver: (call, output) => push({ role: "tool", tool_call_id: call.id, content: output }),
    });
    if (signal.aborted) return false;
    deps.stepDone?.();
    return true;
  };
  if (input.pendingCalls?.length && !(await runCalls(input.pendingCalls))) return outcome("cancelled");
  while (calls < maxCalls) {
    if (signal.aborted) return outcome("cancelled");
    for (const injected of deps.takeInjected?.() ?? []) push(injected);
    if (calls > 0 && deps.beforeModelCall) messages = (await deps.beforeModelCall(messages, usage)) ?? messages;
    if (signal.aborted) return outcome("cancelled");
    calls += 1;
    deps.onProgress?.({ type: "model_call", n: calls });
    const streamed = await streamOnce(input, messages, specs, deps, signal);
    if (streamed.result?.usage) {
      usage = streamed.result.usage;
      totalUsage.promptTokens += usage.promptTokens;
      totalUsage.completionTokens += usage.completionTokens;
    }
    deps.modelCallEnded?.(streamed.result?.usage);
    if (streamed.text || streamed.result?.toolCalls.length) {
      push(assistantMessage(streamed.text, streamed.result?.toolCalls ?? []));
    }
    if (signal.aborted) {
      closeUnansweredCalls(streamed.result?.toolCalls ?? [], 0, push);
      return outcome("cancelled");
    }
    if (!streamed.result) {
      const message = streamed.error ?? "the model request failed";
      deps.emit(agentMessageChunk(`\n\n⚠️ ${message}`, deps.newId()));
      return outcome(null, { error: { code: -32603, message } });
    }
    const { finishReason, toolCalls } = streamed.result;
    if (toolCalls.length === 0) {
      if (finishReason === "length") return outcome("max_tokens");
      if (finishReason === "content_filter") return outcome("refusal");
      return outcome("end_turn");
    }
    if (!(await runCalls(toolCalls))) return outcome("cancelled");
  }
  return outcome("max_turn_requests");
}

interface Streamed {
  text: string;
  result?: ModelResult;
  error?: string;
}

/** One model call with retries for 429/5xx that happen before anything streamed. */
async function streamOnce(
  input: TurnInput,
  messages: ChatMessage[],
  specs: ReturnType<typeof toolSpecs>,
  deps: TurnDeps,
  signal: AbortSignal,
): Promise<Streamed> {
  const policy = deps.retry ?? DEFAULT_RETRY;
  const messageId = deps.newId();
  const thoughtId = deps.newId();
  // The answer is kept as the pieces the coalescer sends, not delta by delta: a fast answer's thousands of
  // small strings would otherwise stay alive until the turn ends, and the collector copies them again and
  // again (BENCHMARKS.md, figure 2b, session 19). Every delta reaches a piece: the coalescer is flushed below.
  let text = "";
  const coalescer = new ChunkCoalescer((kind, piece) => {
    if (kind === "text") text += piece;
    deps.emit(kind === "text" ? agentMessageChunk(piece, messageId) : agentThoughtChunk(piece, thoughtId));
  }, deps.coalesceMs ?? 0);
  for (let attempt = 1; ; attempt++) {
    let streamedAnything = false;
    try {
      const stream = deps.provider.stream({
        model: input.model,
        messages,
        tools: specs,
        signal,
        ...(input.reasoningEffort ? { reasoningEffort: input.reasoningEffort } : {}),
      });
      for (;;) {
        const next = await stream.next();
        if (next.done) {
          coalescer.flush();
          return { text, result: next.value };
        }
        streamedAnything = true;
        coalescer.push(next.value.type, next.value.text);
      }
    } catch (err) {
      coalescer.flush();
      if (signal.aborted) return { text };
      if (!streamedAnything && shouldRetry(err, attempt, policy)) {
        await sleep(retryDelayMs(attempt, policy), signal);
        if (signal.aborted) return { text };
        continue;
      }
      const reason = err instanceof Error ? err.message : String(err);
      const tries = attempt > 1 ? ` after ${attempt} tries` : "";
      return { text, error: `The model request failed${tries}: ${reason}. The session is intact; send your prompt again to retry.` };
    }
  }
}

function assistantMessage(text: string, toolCalls: ModelToolCall[]): ChatMessage {
  if (toolCalls.length === 0) return { role: "assistant", content: text };
  return {
    role: "assistant",
    content: text || null,
    tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  };
}

/** Every tool call in history needs an answer, or the next model call is rejected. */
function closeUnansweredCalls(calls: ModelToolCall[], from: number, push: (m: ChatMessage) => void): void {
  for (const call of calls.slice(from)) {
    push({ role: "tool", tool_call_id: call.id, content: NOT_RUN_CANCELLED });
  }
}
