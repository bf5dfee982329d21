/**
 * What the turn loop needs from a model: a stream of text and reasoning deltas
 * that ends with the finish reason, the complete tool calls and the usage.
 * Each implementation lives in its own file (`openai-provider.ts`).
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";

export type ChatMessage = ChatCompletionMessageParam;
export type ToolSpec = ChatCompletionTool;

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  /** Shared between calls with the same tools (`toolSpecs`): never changed. */
  tools: readonly ToolSpec[];
  reasoningEffort?: "low" | "medium" | "high";
  signal: AbortSignal;
}

export type ModelDelta = { type: "text"; text: string } | { type: "reasoning"; text: string };

export interface ModelToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it; parsed and validated by the tool. */
  arguments: string;
}

export type FinishReason = "stop" | "length" | "content_filter" | "tool_calls" | "unknown";

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelResult {
  finishReason: FinishReason;
  toolCalls: ModelToolCall[];
  usage: ModelUsage | undefined;
}

export interface ModelProvider {
  /** Yields deltas as they arrive; returns the result when the model is done. */
  stream(request: ModelRequest): AsyncGenerator<ModelDelta, ModelResult>;
}

/** A failed model call. `retryable` is true for 429 and 5xx answers and dropped connections. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ProviderError";
  }
}
