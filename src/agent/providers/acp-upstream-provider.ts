/**
 * `ModelProvider` over another ACP agent (the seed's CopilotACPClient): each
 * model call is one ACP client connection through the official SDK, with
 * `initialize` (fs only), a fresh `session/new` in the session's cwd and one
 * `session/prompt` holding the flattened transcript. Its message and thought
 * chunks stream back as deltas; tool calls are read from its final text.
 */
import { client, PROTOCOL_VERSION, type ClientConnection, type SessionUpdate, type Stream, type UsageUpdate } from "@agentclientprotocol/sdk";
import { canReadFiles, canWriteFiles } from "../../tools/client-calls.js";
import { ProviderError, type ModelDelta, type ModelProvider, type ModelRequest, type ModelResult, type ModelUsage } from "../model-provider.js";
import { flattenTranscript } from "./flatten-transcript.js";
import { HeldText } from "./held-text.js";
import { UpdateOrder } from "./update-order.js";
import { serveUpstreamRequests, type UpstreamToolContext } from "./upstream-editor.js";

export interface UpstreamEndpoint {
  id: string;
  name: string;
  /** Opens the transport; throws `UpstreamUnavailable` with the cause when it cannot. */
  open(signal: AbortSignal): Promise<Stream>;
}

/** A transport that could not be opened; `message` says why, for the conversation. */
export class UpstreamUnavailable extends Error {}

export interface UpstreamCallContext {
  cwd: string;
  additionalDirectories: string[];
  toolContext: UpstreamToolContext;
  /** What the editor can do: the upstream is offered the same fs capabilities, never a terminal. */
  editorCapabilities(): { fs?: { readTextFile?: boolean; writeTextFile?: boolean } };
  timeoutMs: number;
}

type Event = { kind: "update"; update: SessionUpdate } | { kind: "stop"; stopReason: string } | { kind: "failed"; error: unknown };

export class AcpUpstreamProvider implements ModelProvider {
  constructor(
    private readonly endpoint: UpstreamEndpoint,
    private readonly call: UpstreamCallContext,
  ) {}

  get label(): string {
    return `upstream agent "${this.endpoint.name}" (acp:${this.endpoint.id})`;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelDelta, ModelResult> {
    const { signal } = request;
    const events = new EventQueue();
    let upstreamSession: string | undefined;
    const app = serveUpstreamRequests(client({ name: "hermes-edge" }), this.label, this.call.toolContext);
    const order = new UpdateOrder();
    app.onNotification("session/update", (ctx) => {
      if (ctx.params.sessionId === upstreamSession) events.push({ kind: "update", update: ctx.params.update });
      order.handled();
    });
    let conn: ClientConnection | undefined;
    /** The upstream frees a session on `session/close` (`sessionCapabilities.close`); each model call opens one. */
    let canClose = false;
    const onAbort = () => events.push({ kind: "failed", error: signal.reason });
    signal.addEventListener("abort", onAbort);
    try {
      const transport = order.watch(await this.#step("connecting", this.endpoint.open(signal), signal));
      conn = app.connect(transport);
      const connection = conn;
      void connection.closed.then(() => events.push({ kind: "failed", error: new Error("the connection closed") }));
      const editor = this.call.editorCapabilities();
      const init = await this.#step(
        "initialize",
        connection.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: canReadFiles(editor), writeTextFile: canWriteFiles(editor) }, terminal: false },
          clientInfo: { name: "hermes-edge", version: "1" },
        }),
        signal,
      );
      if (init.protocolVersion !== PROTOCOL_VERSION) throw new Error(`it speaks ACP protocol version ${init.protocolVersion}, not ${PROTOCOL_VERSION}`);
      canClose = init.agentCapabilities?.sessionCapabilities?.close != null;
      const session = await this.#step(
        "session/new",
        connection.agent.request("session/new", { cwd: this.call.cwd, additionalDirectories: this.call.additionalDirectories, mcpServers: [] }),
        signal,
      );
      upstreamSession = session.sessionId;
      const prompt = flattenTranscript(request.messages, request.tools);
      connection.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: prompt }] }).then(
        // Updates written right before the answer come first (see update-order.ts).
        (response) => void order.caughtUp().then(() => events.push({ kind: "stop", stopReason: response.stopReason })),
        (error: unknown) => events.push({ kind: "failed", error }),
      );
      const held = new HeldText();
      let usage: ModelUsage | undefined;
      for (;;) {
        const event = await events.next(this.call.timeoutMs);
        if (event === "timeout") throw new Error(`no answer within ${this.call.timeoutMs} ms (HERMES_ACP_UPSTREAM_TIMEOUT_MS)`);
        if (event.kind === "failed") throw event.error;
        if (event.kind === "stop") {
          const { rest, parsed } = held.end();
          if (rest) yield { type: "text", text: rest };
          const calls = parsed.calls.map((c, i) => ({ ...c, id: `acp_${crypto.randomUUID().slice(0, 8)}_${i}` }));
          const finishReason = calls.length > 0 ? "tool_calls" : event.stopReason === "max_tokens" ? "length" : event.stopReason === "refusal" ? "content_filter" : "stop";
          return { finishReason, toolCalls: calls, usage: usage ?? { promptTokens: 0, completionTokens: 0 } };
        }
        const update = event.update;
        if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
          const shown = held.push(update.content.text);
          if (shown) yield { type: "text", text: shown };
        } else if (update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text") {
          yield { type: "reasoning", text: update.content.text };
        } else if (update.sessionUpdate === "usage_update") {
          usage = usageOf(update);
        }
      }
    } catch (err) {
      if (signal.aborted) {
        // Tell the upstream to stop; the turn loop reports the cancellation itself.
        if (conn && upstreamSession) await conn.agent.notify("session/cancel", { sessionId: upstreamSession }).catch(() => undefined);
        throw signal.reason ?? err;
      }
      throw new ProviderError(`${this.label} failed: ${describe(err)}`, undefined, false, { cause: err });
    } finally {
      signal.removeEventListener("abort", onAbort);
      // A long-lived upstream (a proxy-hosted process) would otherwise keep every call's session.
      const closing = conn && upstreamSession && canClose ? conn.agent.request("session/close", { sessionId: upstreamSession }).catch(() => undefined) : undefined;
      const connection = conn;
      if (closing) void withTimeoutOf(closing, Math.min(this.call.timeoutMs, CLOSE_WAIT_MS)).finally(() => connection?.close());
      else conn?.close();
    }
  }

  /** One setup step, bounded by the timeout and the turn's cancellation, with the step named in the error. */
  async #step<T>(what: string, promise: Promise<T>, signal: AbortSignal): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${this.call.timeoutMs} ms (HERMES_ACP_UPSTREAM_TIMEOUT_MS)`)), this.call.timeoutMs);
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort);
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (err) {
      if (err instanceof UpstreamUnavailable) throw err;
      throw new Error(`${what}: ${describe(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort!);
    }
  }
}

/** `usage_update` reports the context in use; the seed's client counts it as the prompt's tokens. */
function usageOf(update: UsageUpdate & { sessionUpdate: "usage_update" }): ModelUsage {
  return { promptTokens: update.used, completionTokens: 0 };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && "message" in err) {
    const { code, message } = err as { code?: unknown; message?: unknown };
    return `${String(message)}${typeof code === "number" ? ` [${code}]` : ""}`;
  }
  return String(err);
}

/** Upstream events in arrival order, read one at a time with an idle timeout. */
class EventQueue {
  readonly #items: Event[] = [];
  #waiter: ((event: Event) => void) | undefined;

  push(event: Event): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter(event);
    else this.#items.push(event);
  }

  next(timeoutMs: number): Promise<Event | "timeout"> {
    const ready = this.#items.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        resolve("timeout");
      }, timeoutMs);
      this.#waiter = (event) => {
        clearTimeout(timer);
        resolve(event);
      };
    });
  }
}

/** How long a call's connection stays open for the upstream's answer to `session/close`. */
const CLOSE_WAIT_MS = 10_000;

/** Waits for `promise`, at most `ms`. */
function withTimeoutOf(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
