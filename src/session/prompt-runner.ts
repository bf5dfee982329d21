/**
 * The session's prompt queue and its running turn. Prompts are stored before
 * they run; one runs at a time; each `session/prompt` is answered when its own
 * turn ends, and every attached connection hears `_hermes/turn_ended`.
 * `/steer` and `/queue` act at once, even while a turn runs.
 */
import type { ContentBlock, StopReason } from "@agentclientprotocol/sdk";
import { internalError, toErrorResponse, type ErrorResponse, type TurnState } from "@hermes-edge/protocol";
import { agentMessageChunk, sessionInfoUpdate, usageUpdate, userMessageChunk } from "../acp/updates.js";
import type { ChatMessage } from "../agent/model-provider.js";
import { promptText } from "../agent/prompt-content.js";
import { unansweredToolResults } from "../agent/history-repair.js";
import { titleFromPrompt } from "../agent/session-title.js";
import type { TurnOutcome } from "../agent/turn-loop.js";
import type { ConnectionRef } from "./connection-ref.js";
import { runCommand } from "./command-runner.js";
import type { SessionRuntime } from "./session-runtime.js";
import type { PromptRow, RequestId } from "./session-store.js";
import { parseSlashCommand } from "./slash-commands.js";
import type { TurnBoundary } from "./fork.js";
import { compactNow, NO_MODEL_MESSAGE, runModelTurn, type TurnPorts } from "./model-turn.js";
import { contextWindowFor } from "../config.js";

export interface PromptPorts extends TurnPorts {
  /** Keeps the object awake while a turn runs (an alarm heartbeat). */
  keepAlive(running: boolean): void;
  onTitle(title: string): void;
  onTurnEnd(stopReason: StopReason): void;
}

export class PromptRunner {
  #current: { row: PromptRow; controller: AbortController; start: TurnBoundary } | null = null;
  /** The queue being worked through, if any; close and delete wait on it. */
  #draining: Promise<void> | null = null;
  /** `/steer` guidance waiting for the running turn's next model call. */
  #injected: ChatMessage[] = [];

  constructor(
    private readonly runtime: SessionRuntime,
    private readonly ports: PromptPorts,
  ) {}

  turnState(): TurnState {
    const record = this.runtime.store.record();
    return {
      state: this.#current ? "running" : "idle",
      ...(record?.lastStopReason ? { lastStopReason: record.lastStopReason } : {}),
      ...(record?.lastTurn ? { lastRequestId: record.lastTurn.requestId, lastConnectionId: record.lastTurn.connectionId } : {}),
      ...(record?.interruptedPrompt ? { interruptedPrompt: record.interruptedPrompt } : {}),
    };
  }

  enqueue(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): void {
    this.runtime.ownAttached(conn);
    const command = parseSlashCommand(prompt);
    if (this.#current && command?.arg && (command.name === "steer" || command.name === "queue")) {
      this.#actNow(conn, requestId, command.name, command.arg);
      return;
    }
    this.runtime.store.enqueuePrompt(conn.connectionId, requestId, prompt, Date.now());
    this.#drain();
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
    const queued = this.runtime.store.promptsIn("queued").find((r) => r.connectionId === connectionId && r.requestId === requestId);
    if (queued) this.#finish(queued, { stopReason: "cancelled" });
  }

  /** Where the running turn began (what a fork must not copy), or null when idle. */
  runningTurnStart(): TurnBoundary | null {
    return this.#current?.start ?? null;
  }

  /** Waits for the running turn (used by close/delete after cancelling). */
  async idle(): Promise<void> {
    await this.#draining;
  }

  /** After a restart: a turn that was running is recorded as interrupted, never silently lost. */
  recoverInterrupted(): void {
    const cut = [...this.runtime.store.promptsIn("running"), ...this.runtime.store.promptsIn("queued")];
    if (cut.length === 0) return;
    const texts = cut.map((r) => promptText(r.prompt));
    const { store } = this.runtime;
    for (const message of unansweredToolResults(store.history(), "Not run: the service restarted during this turn.")) {
      store.appendHistory(message);
    }
    store.updateRecord({ interruptedPrompt: texts.join("\n\n") });
    this.runtime.emit(
      agentMessageChunk(
        `\n\n⚠️ The service restarted while this turn was running, so it stopped early. Your prompt was kept:\n\n> ${texts[0]!.slice(0, 500)}\n\nUse /retry to run it again.`,
        this.ports.newId(),
      ),
    );
    for (const row of cut) this.#finish(row, { stopReason: "cancelled" }, { interrupted: true });
  }

  #actNow(conn: ConnectionRef, requestId: RequestId, name: "steer" | "queue", text: string): void {
    if (name === "steer") {
      this.#injected.push({ role: "user", content: `Guidance from the user while you work: ${text}` });
      this.runtime.emit(agentMessageChunk(`↪ Guidance noted; the running turn will follow it from its next step.`, this.ports.newId()));
    } else {
      this.runtime.store.enqueuePrompt(null, null, [{ type: "text", text }], Date.now());
      this.runtime.emit(agentMessageChunk(`Queued: ${text.slice(0, 200)}`, this.ports.newId()));
    }
    this.runtime.respond(conn.connectionId, requestId, { result: { stopReason: "end_turn" } });
  }

  #drain(): void {
    this.#draining ??= this.#work().finally(() => {
      this.#draining = null;
    });
  }

  async #work(): Promise<void> {
    this.ports.keepAlive(true);
    try {
      for (let row = this.#nextQueued(); row; row = this.#nextQueued()) await this.#run(row);
    } finally {
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
    this.#current = { row, controller, start: { segment: store.segment(), historyId: store.lastHistoryId(), seq: store.lastSeq() } };
    try {
      this.#finish(row, await this.#turn(row, controller.signal));
    } catch (err) {
      console.error("turn crashed", err);
      const message = `The turn failed inside the service: ${err instanceof Error ? err.message : String(err)}`;
      this.runtime.emit(agentMessageChunk(`\n\n⚠️ ${message}`, this.ports.newId()));
      this.#finish(row, { stopReason: "end_turn", error: toErrorResponse(internalError(message)) });
    } finally {
      this.#current = null;
      this.#injected = [];
    }
  }

  async #turn(row: PromptRow, signal: AbortSignal): Promise<Pick<TurnOutcome, "stopReason" | "error">> {
    const { store } = this.runtime;
    const userMessageId = this.ports.newId();
    for (const block of row.prompt) this.runtime.emit(userMessageChunk(block, userMessageId), { exclude: row.connectionId });
    let prompt = row.prompt;
    const command = parseSlashCommand(prompt);
    if (command) {
      const result = runCommand(command, {
        record: () => store.record()!,
        settings: this.ports.sessionSettings,
        models: this.ports.settings.models,
        toolNames: () => this.ports.toolsForTurn(row.connectionId).map((t) => t.name),
        contextWindow: () => this.#contextWindow(),
        clearHistory: () => store.clearHistory(),
        lastPrompt: () => this.#lastPrompt(),
      });
      if ("compress" in result) return this.#compress(row.connectionId, signal);
      if ("reply" in result) {
        this.runtime.emit(agentMessageChunk(result.reply, this.ports.newId()));
        return { stopReason: "end_turn" };
      }
      prompt = result.prompt;
    }
    if (!store.record()!.title) {
      const title = titleFromPrompt(promptText(prompt));
      store.updateRecord({ title });
      this.runtime.emit(sessionInfoUpdate(title, new Date().toISOString()));
      this.ports.onTitle(title);
    }
    store.updateRecord({ interruptedPrompt: null });
    const outcome = await runModelTurn(this.runtime, this.ports, { prompt, connectionId: row.connectionId, signal, takeInjected: () => this.#takeInjected() });
    if (outcome.usage) {
      const used = outcome.usage.promptTokens + outcome.usage.completionTokens;
      store.updateRecord({ lastUsage: used });
      this.runtime.emit(usageUpdate(used, this.#contextWindow()));
    }
    return outcome;
  }

  #contextWindow(): number {
    return contextWindowFor(this.runtime.store.record()!.model, this.ports.settings);
  }

  /** `/compress`: compact now, whatever the size, and say what happened. */
  async #compress(connectionId: string | null, signal: AbortSignal): Promise<Pick<TurnOutcome, "stopReason">> {
    const result = await compactNow(this.runtime, this.ports, connectionId, signal);
    const reply =
      result.status === "completed"
        ? `Compacted the earlier conversation into a summary; the session continues as ${this.runtime.store.record()!.lineage.currentId}.`
        : result.status === "skipped"
          ? "Nothing to compact yet: there are no earlier turns."
          : result.status === "no_model"
            ? NO_MODEL_MESSAGE
            : null;
    if (reply) this.runtime.emit(agentMessageChunk(reply, this.ports.newId()));
    return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
  }

  #takeInjected(): ChatMessage[] {
    const taken = this.#injected;
    this.#injected = [];
    return taken;
  }

  #lastPrompt(): ContentBlock[] | null {
    const interrupted = this.runtime.store.record()!.interruptedPrompt;
    if (interrupted) return [{ type: "text", text: interrupted }];
    return this.runtime.store.recentPrompts(20).find((p) => !parseSlashCommand(p)) ?? null;
  }

  #finish(row: PromptRow, outcome: { stopReason: StopReason; error?: ErrorResponse | undefined }, extra: { interrupted?: boolean } = {}): void {
    this.runtime.store.setPromptState(row.id, extra.interrupted ? "interrupted" : "done", outcome.stopReason);
    this.runtime.store.updateRecord({
      lastStopReason: outcome.stopReason,
      lastTurn: { requestId: row.requestId, connectionId: row.connectionId },
    });
    this.runtime.emitTurnEnded({
      sessionId: this.runtime.store.record()!.sessionId,
      stopReason: outcome.stopReason,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      _meta: { hermes: { requestId: row.requestId, connectionId: row.connectionId, ...(extra.interrupted ? { interrupted: true } : {}) } },
    });
    const answer = outcome.error ? { error: outcome.error } : { result: { stopReason: outcome.stopReason } };
    this.runtime.respond(row.connectionId, row.requestId, answer);
    this.ports.onTurnEnd(outcome.stopReason);
  }
}
