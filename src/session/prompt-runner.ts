/**
 * The session's prompt queue and its running turn. Prompts are stored before
 * they run; one runs at a time; each `session/prompt` is answered when its own
 * turn ends, and every attached connection hears `_hermes/turn_ended`.
 */
import type { ContentBlock, StopReason } from "@agentclientprotocol/sdk";
import { AcpError, type JsonRpcErrorBody } from "../acp/errors.js";
import { agentMessageChunk, sessionInfoUpdate, usageUpdate, userMessageChunk } from "../acp/updates.js";
import type { ModelProvider } from "../agent/model-provider.js";
import { promptText, toUserContent } from "../agent/prompt-content.js";
import { titleFromPrompt } from "../agent/session-title.js";
import { systemPrompt } from "../agent/system-prompt.js";
import { runTurn, type TurnOutcome } from "../agent/turn-loop.js";
import type { RetryPolicy } from "../agent/retry.js";
import type { AnyTool, ClientPort } from "../tools/tool.js";
import type { ModelSettings } from "../config.js";
import type { ConnectionRef } from "./connection-ref.js";
import type { SessionRuntime, TurnState } from "./session-runtime.js";
import type { PromptRow, RequestId } from "./session-store.js";
import { clientPortFor } from "./client-port.js";

export interface PromptPorts {
  settings: ModelSettings;
  /** Null when no API key is configured. */
  provider(): ModelProvider | null;
  tools(client: ClientPort): AnyTool[];
  newId(): string;
  coalesceMs: number;
  retry?: RetryPolicy;
  /** Keeps the object awake while a turn runs (an alarm heartbeat). */
  keepAlive(running: boolean): void;
  onTitle(title: string): void;
  onTurnEnd(stopReason: StopReason): void;
}

export const NO_MODEL_MESSAGE =
  "No model is configured for hermes-edge. Set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and HERMES_MODEL) " +
  "in `.dev.vars` for `wrangler dev`, or with `wrangler secret put OPENAI_API_KEY` in production, then send your prompt again.";

export class PromptRunner {
  #current: { row: PromptRow; controller: AbortController } | null = null;
  #draining = false;

  constructor(
    private readonly runtime: SessionRuntime,
    private readonly ports: PromptPorts,
  ) {}

  turnState(): TurnState {
    const record = this.runtime.store.record();
    return {
      state: this.#current ? "running" : "idle",
      ...(record?.lastStopReason ? { lastStopReason: record.lastStopReason } : {}),
      ...(record?.interruptedPrompt ? { interruptedPrompt: record.interruptedPrompt } : {}),
    };
  }

  enqueue(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): void {
    this.runtime.ownAttached(conn);
    this.runtime.store.enqueuePrompt(conn.connectionId, requestId, prompt, Date.now());
    void this.#drain();
  }

  /** `session/cancel`: the running turn ends `cancelled`, queued prompts are answered `cancelled`. */
  cancelAll(): void {
    for (const row of this.runtime.store.promptsIn("queued")) this.#finish(row, { stopReason: "cancelled" });
    this.#current?.controller.abort();
  }

  /** `$/cancel_request` for one prompt of this connection. */
  cancelRequest(connectionId: string, requestId: RequestId): void {
    if (this.#current && this.#current.row.connectionId === connectionId && this.#current.row.requestId === requestId) {
      this.#current.controller.abort();
      return;
    }
    const queued = this.runtime.store
      .promptsIn("queued")
      .find((r) => r.connectionId === connectionId && r.requestId === requestId);
    if (queued) this.#finish(queued, { stopReason: "cancelled" });
  }

  /** Waits for the running turn (used by close/delete after cancelling). */
  async idle(): Promise<void> {
    while (this.#draining) await new Promise((r) => setTimeout(r, 5));
  }

  /** After a restart: a turn that was running is recorded as interrupted, never silently lost. */
  recoverInterrupted(): void {
    const cut = [...this.runtime.store.promptsIn("running"), ...this.runtime.store.promptsIn("queued")];
    if (cut.length === 0) return;
    const texts = cut.map((r) => promptText(r.prompt));
    this.runtime.store.updateRecord({ interruptedPrompt: texts.join("\n\n") });
    this.runtime.emit(
      agentMessageChunk(
        `\n\n⚠️ The service restarted while this turn was running, so it stopped early. Your prompt was kept:\n\n> ${texts[0]!.slice(0, 500)}\n\nSend it again to continue.`,
        this.ports.newId(),
      ),
    );
    for (const row of cut) this.#finish(row, { stopReason: "cancelled" }, { interrupted: true, state: "interrupted" });
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    this.ports.keepAlive(true);
    try {
      for (let row = this.#nextQueued(); row; row = this.#nextQueued()) await this.#run(row);
    } finally {
      this.#draining = false;
      this.ports.keepAlive(false);
    }
  }

  #nextQueued(): PromptRow | undefined {
    return this.runtime.store.promptsIn("queued")[0];
  }

  async #run(row: PromptRow): Promise<void> {
    const { store } = this.runtime;
    store.setPromptState(row.id, "running");
    const controller = new AbortController();
    this.#current = { row, controller };
    try {
      const outcome = await this.#turn(row, controller.signal);
      this.#finish(row, outcome);
    } catch (err) {
      console.error("turn crashed", err);
      const message = `The turn failed inside the service: ${err instanceof Error ? err.message : String(err)}`;
      this.runtime.emit(agentMessageChunk(`\n\n⚠️ ${message}`, this.ports.newId()));
      this.#finish(row, { stopReason: "end_turn", error: AcpError.internalError(message).toJSON() });
    } finally {
      this.#current = null;
    }
  }

  async #turn(row: PromptRow, signal: AbortSignal): Promise<Pick<TurnOutcome, "stopReason" | "error">> {
    const { store } = this.runtime;
    const record = store.record()!;
    const userMessageId = this.ports.newId();
    for (const block of row.prompt) this.runtime.emit(userMessageChunk(block, userMessageId), { exclude: row.connectionId });
    if (!record.title) {
      const title = titleFromPrompt(promptText(row.prompt));
      store.updateRecord({ title, interruptedPrompt: null });
      this.runtime.emit(sessionInfoUpdate(title, new Date().toISOString()));
      this.ports.onTitle(title);
    }
    const provider = this.ports.provider();
    if (!provider) {
      this.runtime.emit(agentMessageChunk(NO_MODEL_MESSAGE, this.ports.newId()));
      return { stopReason: "end_turn" };
    }
    const userMessage = { role: "user" as const, content: toUserContent(row.prompt) };
    store.appendHistory(userMessage);
    const client = clientPortFor(this.runtime, row.connectionId);
    const tools = this.ports.tools(client);
    const outcome = await runTurn(
      {
        model: record.model,
        messages: [{ role: "system", content: systemPrompt(record, tools) }, ...store.history()],
        tools,
      },
      {
        provider,
        emit: (update) => this.runtime.emit(update),
        record: (message) => store.appendHistory(message),
        toolContext: (toolCallId, toolSignal) => ({
          sessionId: record.sessionId,
          cwd: record.cwd,
          additionalDirectories: record.additionalDirectories,
          toolCallId,
          signal: toolSignal,
          client,
          emit: (update) => this.runtime.emit(update),
        }),
        newId: this.ports.newId,
        coalesceMs: this.ports.coalesceMs,
        ...(this.ports.retry ? { retry: this.ports.retry } : {}),
      },
      signal,
    );
    if (outcome.usage) {
      this.runtime.emit(usageUpdate(outcome.usage.promptTokens + outcome.usage.completionTokens, this.ports.settings.contextWindow));
    }
    return outcome;
  }

  #finish(
    row: PromptRow,
    outcome: { stopReason: StopReason; error?: JsonRpcErrorBody | undefined },
    extra: { interrupted?: boolean; state?: "interrupted" } = {},
  ): void {
    this.runtime.store.setPromptState(row.id, extra.state ?? "done", outcome.stopReason);
    this.runtime.store.updateRecord({ lastStopReason: outcome.stopReason });
    const sessionId = this.runtime.store.record()!.sessionId;
    this.runtime.emitTurnEnded({
      sessionId,
      stopReason: outcome.stopReason,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      _meta: { hermes: { requestId: row.requestId, connectionId: row.connectionId, ...(extra.interrupted ? { interrupted: true } : {}) } },
    });
    this.runtime.respond(row.connectionId, row.requestId, outcome.error ? { error: outcome.error } : { result: { stopReason: outcome.stopReason } });
    this.ports.onTurnEnd(outcome.stopReason);
  }
}
