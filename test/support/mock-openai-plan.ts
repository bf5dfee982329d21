/**
 * Pure helpers for the mock model server: they turn a scripted {@link MockStep}
 * into the OpenAI wire shapes (streamed chunk deltas or one chat.completion).
 * Kept apart from the HTTP code so the shapes are easy to read and to test.
 *
 * @module
 */

export interface MockToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

export interface MockStep {
  /** Non-2xx: reply with this status and an OpenAI-style error body (`text`, if set, is the message). */
  status?: number;
  /** Assistant content, streamed in chunks of `chunkSize` characters. */
  text?: string;
  /** Explicit content chunks (instead of `text`). */
  chunks?: string[];
  /** Generate this many tokens of content ("t0 t1 t2 ..."), one token per chunk. */
  tokens?: number;
  /** Streamed before content as `delta.reasoning_content` (or `delta.reasoning`, see below). */
  reasoning?: string;
  reasoningField?: "reasoning_content" | "reasoning";
  /** Streamed as `delta.tool_calls` the way OpenAI does. */
  toolCalls?: MockToolCall[];
  /** Default: "tool_calls" if `toolCalls` is non-empty, else "stop". */
  finishReason?: "stop" | "length" | "content_filter" | "tool_calls";
  /** Default: estimated as characters / 4. Sent when `stream_options.include_usage` is true. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Default 8 characters. */
  chunkSize?: number;
  /** Delay between chunks, default 0. */
  chunkDelayMs?: number;
  /**
   * Pace the stream instead (overrides `chunkDelayMs`): event `i` is due
   * `i * chunkIntervalMs` after the first one, fractions allowed. Events that
   * are due are written back to back and the mock sleeps (≥ 1 ms, a timer
   * tick) only when it is ahead of schedule, so 20,000 tokens at 0.075 ms take
   * about 1.5 s instead of the ≥ 20 s that a 1 ms `chunkDelayMs` would.
   */
  chunkIntervalMs?: number;
  /** Record when each SSE event was written, in `RecordedCall.chunkWrittenAt` (benchmarks). */
  recordChunkTimes?: boolean;
  /** Delay before the first chunk (headers are sent at once), default 0. */
  firstTokenDelayMs?: number;
  /** Destroy the socket after this many SSE events (a broken stream). */
  dropAfterChunks?: number;
}

/** A message as the mock reads it: only the fields it looks at are typed. */
export interface ChatMessage {
  role: string;
  content?: string | Array<{ type?: string; text?: string }> | null;
  [field: string]: unknown;
}

/** A chat completion request body that passed the mock's validation. */
export interface ChatRequestBody {
  model?: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One `choices[0].delta` of a streamed chunk, and whether it carries model output. */
export interface PlannedDelta {
  delta: Record<string, unknown>;
  /** True for content, reasoning and tool-call deltas: the first one sets `firstTokenAt`. */
  isToken: boolean;
}

const MARKER = /\[\[mock:([^\]\s]+)\]\]/;
const DEFAULT_CHUNK_SIZE = 8;

/** Text of a message, joining array content parts that carry `text`. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

/** The first `[[mock:KEY]]` marker, searching from the first message so a system prompt can carry it. */
export function findScriptKey(messages: ChatMessage[]): string | null {
  for (const message of messages) {
    const key = findScriptKeyIn(messageText(message));
    if (key !== null) return key;
  }
  return null;
}

/** The first `[[mock:KEY]]` marker anywhere in `text` (a piece of a request body not yet parsed). */
export function findScriptKeyIn(text: string): string | null {
  return MARKER.exec(text)?.[1] ?? null;
}

/** What the mock does when no script applies: echo the last user message. */
export function defaultStep(messages: ChatMessage[]): MockStep {
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  return { text: `Echo: ${lastUser ? messageText(lastUser) : ""}` };
}

export function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** The content pieces of a step, in the order they are streamed. */
export function contentPieces(step: MockStep): string[] {
  if (step.chunks) return step.chunks;
  if (step.tokens !== undefined) {
    return Array.from({ length: step.tokens }, (_, i) => (i === 0 ? "t0" : ` t${i}`));
  }
  return splitText(step.text ?? "", step.chunkSize ?? DEFAULT_CHUNK_SIZE);
}

export function toolCallArguments(call: MockToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

export function toolCallId(call: MockToolCall, index: number): string {
  return call.id ?? `call_mock_${index}`;
}

export function finishReasonOf(step: MockStep): string {
  return step.finishReason ?? (step.toolCalls?.length ? "tool_calls" : "stop");
}

function reasoningField(step: MockStep): string {
  return step.reasoningField ?? "reasoning_content";
}

/** Tool calls as OpenAI streams them: id, type and name first, then the arguments in pieces. */
function toolCallDeltas(step: MockStep): PlannedDelta[] {
  const size = step.chunkSize ?? DEFAULT_CHUNK_SIZE;
  return (step.toolCalls ?? []).flatMap((call, index) => {
    const head: PlannedDelta = {
      delta: {
        tool_calls: [
          { index, id: toolCallId(call, index), type: "function", function: { name: call.name, arguments: "" } },
        ],
      },
      isToken: true,
    };
    const pieces = splitText(toolCallArguments(call), size).map((args) => ({
      delta: { tool_calls: [{ index, function: { arguments: args } }] },
      isToken: true,
    }));
    return [head, ...pieces];
  });
}

/**
 * Every delta of a streamed reply: reasoning, content, tool calls, then the
 * finish marker (an empty delta; the caller adds `finish_reason`). The first
 * delta also carries `role: "assistant"`, as OpenAI's does.
 */
export function planDeltas(step: MockStep): PlannedDelta[] {
  const size = step.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const field = reasoningField(step);
  const deltas: PlannedDelta[] = [
    ...splitText(step.reasoning ?? "", size).map((r) => ({ delta: { [field]: r }, isToken: true })),
    ...contentPieces(step).map((c) => ({ delta: { content: c }, isToken: true })),
    ...toolCallDeltas(step),
    { delta: {}, isToken: false },
  ];
  deltas[0] = { ...deltas[0]!, delta: { role: "assistant", ...deltas[0]!.delta } };
  return deltas;
}

const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/**
 * Usage as scripted, else a rough estimate (characters / 4; `tokens` steps
 * count exactly). `request.body` is read only for the estimate.
 */
export function usageOf(step: MockStep, request: { readonly body: ChatRequestBody }): Usage {
  if (step.usage) return { ...step.usage, total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens };
  const prompt = estimateTokens(request.body.messages.map(messageText).join("").length);
  const outputChars =
    contentPieces(step).join("").length +
    (step.reasoning ?? "").length +
    (step.toolCalls ?? []).reduce((n, c) => n + c.name.length + toolCallArguments(c).length, 0);
  const completion = step.tokens ?? estimateTokens(outputChars);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The assistant message of a non-streamed reply. */
export function completionMessage(step: MockStep): Record<string, unknown> {
  const content = contentPieces(step).join("");
  const message: Record<string, unknown> = { role: "assistant", content: content || null };
  if (step.reasoning) message[reasoningField(step)] = step.reasoning;
  if (step.toolCalls?.length) {
    message.tool_calls = step.toolCalls.map((call, index) => ({
      id: toolCallId(call, index),
      type: "function",
      function: { name: call.name, arguments: toolCallArguments(call) },
    }));
  }
  return message;
}

const ERROR_KINDS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

/** An OpenAI-style error body for `status`. */
export function errorBody(status: number, message?: string): { error: Record<string, unknown> } {
  const kind = ERROR_KINDS[status] ?? { type: status >= 500 ? "server_error" : "api_error", code: null };
  return { error: { message: message ?? `Mock error ${status}`, type: kind.type, param: null, code: kind.code } };
}
