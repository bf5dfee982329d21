/**
 * `ModelProvider` over the `openai` package, against any OpenAI-compatible
 * base URL. The package builds the request (URL, auth, its headers) and the
 * error of a refused one; the fetch is made here, the stream is read by
 * `sseBatches`, and the body is built by `chatRequestBody`. Retries are the
 * turn loop's job.
 */
import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatRequestBody } from "./chat-request-body.js";
import { sseBatches, StreamedError } from "./sse-chunks.js";
import {
  ProviderError,
  type FinishReason,
  type ModelDelta,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
  type ModelToolCall,
} from "./model-provider.js";

export class OpenAIProvider implements ModelProvider {
  readonly #client: OpenAI;
  #target: Promise<{ url: string; headers: Headers }> | undefined;

  constructor(options: { baseURL: string; apiKey: string }) {
    this.#client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0, timeout: HEADERS_TIMEOUT_MS });
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelDelta, ModelResult> {
    // The call's own signal follows the turn's; `#post` adds the headers timeout. Joined by hand:
    // `AbortSignal.any` cost about 20 µs a call in workerd, a listener about 4 (BENCHMARKS.md, figure 1b, session 22).
    const call = new AbortController();
    const follow = () => call.abort(request.signal.reason);
    request.signal.addEventListener("abort", follow);
    if (request.signal.aborted) follow();
    try {
      let response: Response;
      try {
        response = await this.#post(request, call);
      } catch (err) {
        throw toProviderError(err, request.signal);
      }
      const calls = new ToolCallAssembler();
      let finishReason: FinishReason = "unknown";
      let usage: ModelResult["usage"];
      try {
        if (!response.body) throw new Error("the model API answered without a body");
        // One step per body read (see `sseBatches`); each delta still goes on by itself, so coalescing stays the turn loop's.
        for await (const batch of sseBatches(response.body)) {
          for (const chunk of batch) {
            if (chunk.usage) {
              // Some OpenAI-compatible servers leave a field out; a missing count is 0, never NaN.
              usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
            }
            const choice = chunk.choices[0];
            if (!choice) continue;
            const delta = choice.delta as ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string };
            const reasoning = delta.reasoning_content ?? delta.reasoning;
            if (reasoning) yield { type: "reasoning", text: reasoning };
            if (delta.content) yield { type: "text", text: delta.content };
            for (const toolCall of delta.tool_calls ?? []) calls.add(toolCall);
            if (choice.finish_reason) finishReason = normalizeFinish(choice.finish_reason);
          }
        }
      } catch (err) {
        throw toProviderError(err, request.signal);
      }
      return { finishReason, toolCalls: calls.complete(), usage };
    } finally {
      request.signal.removeEventListener("abort", follow);
    }
  }

  /**
   * The request as the client's own `post` would send it (`#buildTarget`), fetched without the
   * client's request pipeline: its logging, timer and response wrapping cost
   * 0.1–0.3 ms of CPU and of latency per model call (BENCHMARKS.md, figure 1b).
   * A refused request throws the client's own `APIError` for its status.
   */
  async #post(request: ModelRequest, call: AbortController): Promise<Response> {
    const { url, headers } = await (this.#target ??= this.#buildTarget());
    const timer = setTimeout(() => call.abort(new Error(`no answer within ${HEADERS_TIMEOUT_MS / 1000} s`)), HEADERS_TIMEOUT_MS);
    let response: Response;
    try {
      // The body is bytes lent by `chatRequestBody`: `fetch` copies them when called.
      response = await fetch(url, { method: "POST", headers, body: chatRequestBody(request), signal: call.signal });
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) return response;
    const text = await response.text().catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
    const json = parseJson(text);
    throw OpenAI.APIError.generate(response.status, json, json === undefined ? text : undefined, response.headers);
  }

  /**
   * The URL and headers the client's own `post` would send, less its
   * `x-stainless-*` telemetry (its runtime, OS and retry count as it sees
   * them): workerd copies every header of a request several times on its way
   * out, and those cost about 0.2 ms of each model call's first token
   * (BENCHMARKS.md, figure 1b, session 22). They depend only on the client's
   * options (the OpenAI client adds no per-request idempotency key), so they
   * are built once per provider rather than once per model call.
   */
  async #buildTarget(): Promise<{ url: string; headers: Headers }> {
    const { req, url } = await this.#client.buildRequest({ method: "post", path: "/chat/completions", headers: { "content-type": "application/json" }, stream: true });
    const headers = new Headers(req.headers);
    for (const name of [...headers.keys()]) if (name.startsWith("x-stainless-")) headers.delete(name);
    return { url, headers };
  }
}

/** How long the model API has to answer with its headers; the stream after them has no limit (as with the client's own timeout). */
const HEADERS_TIMEOUT_MS = 600_000;

function parseJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** OpenAI streams a tool call as an id+name delta followed by argument fragments. */
class ToolCallAssembler {
  readonly #byIndex = new Map<number, ModelToolCall>();

  add(delta: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const current = this.#byIndex.get(delta.index) ?? { id: "", name: "", arguments: "" };
    if (delta.id) current.id = delta.id;
    if (delta.function?.name) current.name += delta.function.name;
    if (delta.function?.arguments) current.arguments += delta.function.arguments;
    this.#byIndex.set(delta.index, current);
  }

  complete(): ModelToolCall[] {
    return [...this.#byIndex.entries()]
      .sort(([a], [b]) => a - b)
      // A server that sends no id still needs one per call, unique in the session: the editor and the history match by it.
      .map(([, call]) => ({ ...call, id: call.id || `call_${crypto.randomUUID()}` }));
  }
}

function normalizeFinish(reason: string): FinishReason {
  return reason === "stop" || reason === "length" || reason === "content_filter" || reason === "tool_calls"
    ? reason
    : reason === "function_call"
      ? "tool_calls"
      : "unknown";
}

function toProviderError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return err; // the turn loop reports cancellation, not a failure
  if (err instanceof StreamedError) return new ProviderError(`model API stream error: ${err.message}`, undefined, false, { cause: err });
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const status = err.status;
    const retryable = status === 429 || status >= 500;
    return new ProviderError(`model API answered ${status}: ${err.message}`, status, retryable, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(`model API unreachable: ${message}`, undefined, true, { cause: err });
}
