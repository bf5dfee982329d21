/**
 * The session's prompt queue and its running turn: one lifecycle for an
 * editor's prompt and a sub-agent's task alike. Each is stored before it
 * runs; one runs at a time; its turn ends with the same bookkeeping (state,
 * `_hermes/turn_ended`, the index), and a prompt is answered with its stop
 * reason while a task's outcome goes back to the parent that asked.
 * `/steer` and `/queue` act at once, even while a turn runs.
 */
import { internalError, toErrorResponse, type ErrorResponse, type TurnState } from "@hermes-edge/protocol";
import type { ContentBlock, StopReason } from "@agentclientprotocol/sdk";
import { agentMessageChunk, sessionInfoUpdate, usageUpdate, userMessageChunk } from "../acp/updates.js";
import type { ChatMessage } from "../agent/model-provider.js";
import { promptText } from "../agent/prompt-content.js";
import { unansweredToolResults } from "../agent/history-repair.js";
import { titleFromPrompt } from "../agent/session-title.js";
import { contextWindowFor } from "../config.js";
import type { ConnectionRef } from "./connection-ref.js";
import type { TurnBoundary } from "./fork.js";
import type { SessionSlots } from "../tenant/session-slots.js";
import type { IndexWriter } from "./index-writer.js";
import { runModelTurn, type TurnOverrides, type TurnPorts, type TurnResult } from "./model-turn.js";
import { runPromptCommand } from "./prompt-command.js";
import type { PromptRow, RequestId } from "./session-store.js";
import type { SettingsController } from "./session-settings.js";
import { parseSlashCommand } from "./slash-commands.js";
import { SlotArrivals } from "./slot-arrivals.js";
import { turnRecord } from "./turn-record.js";
import { decideTurnResume, resumeLine } from "./resume-decision.js";

/** How a turn ended, as its prompt's response or its task's caller sees it. */
export type RunOutcome = TurnResult & { error?: ErrorResponse | undefined };

/** A sub-agent's task waiting in the queue: its overrides and who waits for the outcome. */
interface Task {
  overrides: TurnOverrides;
  settle(outcome: RunOutcome): void;
}

export interface RunnerParts {
  turn: TurnPorts;
  settings: SettingsController;
  index: IndexWriter;
  /** The tenant's limits and usage. */
  slots: SessionSlots;
  /** Keeps the object awake while a turn runs (an alarm heartbeat). */
  keepAlive(running: boolean): void;
  /** After every turn's bookkeeping, off its path (the search index is fed here). */
  turnEnded(): void;
}

export class PromptRunner {
  #current: { row: PromptRow; controller: AbortController; start: TurnBoundary; task: Task | undefined } | null = null;
  /** Tasks by prompt row id; a restart loses them, and recovery records their rows as interrupted. */
  readonly #tasks = new Map<number, Task>();
  /** The queue being worked through, if any; close and delete wait on it. */
  #draining: Promise<void> | null = null;
  /** `/steer` guidance waiting for the running turn's next model call. */
  #injected: ChatMessage[] = [];
  /** Prompts that found the queue idle, waiting for the turn slot (see `enqueue`). */
  readonly #arrivals: SlotArrivals;
  /** A turn a restart cut off, to continue before the queue (see `resumeInterrupted`). */
  #resume: { row: PromptRow; released: Promise<void> } | null = null;

  constructor(private readonly parts: RunnerParts) {
    this.#arrivals = new SlotArrivals(parts.slots);
  }

  get #log() {
    return this.parts.turn.log;
  }

  get #store() {
    return this.parts.turn.log.store;
  }

  turnState(): TurnState {
    const record = this.#store.record();
    return {
      // Running from the moment a prompt is on its way, not only while its turn runs: a
      // reconnecting client that hears "idle" sends its unanswered prompt again.
      state: this.#current || this.#draining || this.#resume || this.#arrivals.waiting ? "running" : "idle",
      ...(record?.lastStopReason ? { lastStopReason: record.lastStopReason } : {}),
      ...(record?.lastError ? { lastError: record.lastError } : {}),
      ...(record?.lastTurn ? { lastRequestId: record.lastTurn.requestId, lastConnectionId: record.lastTurn.connectionId } : {}),
      ...(record?.interruptedPrompt ? { interruptedPrompt: record.interruptedPrompt } : {}),
      ...(this.#current || this.#resume ? { resumes: this.#steps.running()?.resumes ?? 0 } : {}),
    };
  }

  get #steps() {
    return this.parts.turn.steps;
  }

  /**
   * An editor's `session/prompt`; answered when its own turn ends. Resolves
   * once the prompt is stored.
   *
   * A prompt that finds the queue idle takes the tenant's turn slot before it
   * is stored: a storage write holds every call the object makes until storage
   * confirms it, so storing first would put that wait in front of the tenant
   * call and a second one, for the turn's own writes, in front of the model
   * request. This way the model request waits for one confirmation only. The
   * caller's answer waits for the slot, so nothing is lost if the object dies
   * meanwhile: the editor gets an error instead.
   */
  async enqueue(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[], admit: () => void = () => undefined): Promise<void> {
    const command = parseSlashCommand(prompt);
    if (this.#current && command?.arg && (command.name === "steer" || command.name === "queue")) {
      this.#actNow(conn, requestId, command.name, command.arg);
      return;
    }
    let cancelled = false;
    if (!this.#draining) {
      ({ cancelled } = await this.#arrivals.wait(conn.connectionId, requestId));
      // Another connection may have closed or deleted the session meanwhile.
      try {
        admit();
      } catch (err) {
        this.#arrivals.leave(conn.connectionId, requestId, { runs: false, queueStarted: this.#draining !== null });
        throw err;
      }
      this.#arrivals.leave(conn.connectionId, requestId, { runs: !cancelled, queueStarted: this.#draining !== null });
    }
    const id = this.#store.enqueuePrompt(conn.connectionId, requestId, prompt, Date.now());
    if (!cancelled) return this.#drain();
    await this.#finish({ id, connectionId: conn.connectionId, requestId, prompt, state: "queued" }, { stopReason: "cancelled" });
  }

  /** A sub-agent's task: the same lifecycle as a prompt, with overrides; resolves when its turn ends. */
  runTask(prompt: ContentBlock[], overrides: TurnOverrides): Promise<RunOutcome> {
    return new Promise((settle) => {
      const id = this.#store.enqueuePrompt(null, null, prompt, Date.now());
      this.#tasks.set(id, { overrides, settle });
      this.#drain();
    });
  }

  /** `session/cancel` (or a sub-agent interrupted): the running turn ends `cancelled`, queued ones too. */
  cancelAll(): void {
    this.#arrivals.cancelAll();
    for (const row of this.#store.promptsIn("queued")) void this.#finish(row, { stopReason: "cancelled" });
    this.#current?.controller.abort();
  }

  /**
   * `$/cancel_request` for one prompt of this connection, or of one that has
   * gone: a client that reconnected under a new connection id cancels the
   * prompt it sent before the drop with the same request id.
   */
  cancelRequest(connectionId: string, requestId: RequestId): void {
    if (this.#arrivals.cancel(connectionId, requestId)) return;
    const cancels = (row: PromptRow) =>
      row.requestId === requestId && row.connectionId !== null && (row.connectionId === connectionId || !this.#log.isAttached(row.connectionId));
    if (this.#current && cancels(this.#current.row)) {
      this.#current.controller.abort();
      return;
    }
    const queued = this.#store.promptsIn("queued").find(cancels);
    if (queued) void this.#finish(queued, { stopReason: "cancelled" });
  }

  /** Where the running turn began (what a fork must not copy), or null when idle. */
  runningTurnStart(): TurnBoundary | null {
    return this.#current?.start ?? null;
  }

  /** Waits for the running turn (used by close/delete after cancelling). */
  async idle(): Promise<void> {
    await this.#draining;
  }

  /**
   * After a restart: the turn that was running continues from its last
   * completed step, within the bounds (`decideTurnResume`); past them, or for
   * a sub-agent's task (its parent holds what the task needs), it is recorded
   * as interrupted with its prompt kept for `/retry`, never silently lost.
   *
   * @param released the old instance's turn slot going back, before the resumed turn takes one.
   */
  resumeInterrupted(released: Promise<void>, canResume: boolean): void {
    const store = this.#store;
    const row = store.promptsIn("running")[0];
    const turn = this.#steps.running();
    if (row && turn?.promptId === row.id && canResume) {
      const decision = decideTurnResume(turn, Date.now());
      if (decision.action === "resume") {
        this.#steps.resumed(decision.resumes);
        this.#resume = { row, released };
        this.#log.emit(agentMessageChunk(resumeLine(decision.resumes), this.parts.turn.newId()));
        this.#drain();
        return;
      }
    }
    this.#recordInterrupted();
  }

  #recordInterrupted(): void {
    const store = this.#store;
    this.#steps.end();
    const cut = [...store.promptsIn("running"), ...store.promptsIn("queued")];
    if (cut.length === 0) return;
    const texts = cut.map((r) => promptText(r.prompt));
    for (const message of unansweredToolResults(store.history(), "Not run: the service restarted during this turn.")) store.appendHistory(message);
    store.updateRecord({ interruptedPrompt: texts.join("\n\n") });
    this.#log.emit(
      agentMessageChunk(
        `\n\n⚠️ The service restarted while this turn was running, so it stopped early. Your prompt was kept:\n\n> ${texts[0]!.slice(0, 500)}\n\nUse /retry to run it again.`,
        this.parts.turn.newId(),
      ),
    );
    for (const row of cut) void this.#finish(row, { stopReason: "cancelled" }, { interrupted: true });
  }

  #actNow(conn: ConnectionRef, requestId: RequestId, name: "steer" | "queue", text: string): void {
    if (name === "steer") {
      this.#injected.push({ role: "user", content: `Guidance from the user while you work: ${text}` });
      this.#log.emit(agentMessageChunk(`↪ Guidance noted; the running turn will follow it from its next step.`, this.parts.turn.newId()));
    } else {
      this.#store.enqueuePrompt(null, null, [{ type: "text", text }], Date.now());
      this.#log.emit(agentMessageChunk(`Queued: ${text.slice(0, 200)}`, this.parts.turn.newId()));
    }
    this.#log.respond(conn.connectionId, requestId, { result: { stopReason: "end_turn" } });
  }

  #drain(): void {
    this.#draining ??= this.#work().finally(() => {
      this.#draining = null;
      // A prompt that arrived while the finished queue was giving its slot back.
      if (this.#store.promptsIn("queued").length > 0) this.#drain();
    });
  }

  async #work(): Promise<void> {
    this.parts.keepAlive(true);
    try {
      if (this.#resume) await this.#resumeTurn(this.#resume);
      for (let row = this.#store.promptsIn("queued")[0]; row; row = this.#store.promptsIn("queued")[0]) {
        // A sub-agent's task runs in its parent's sub-agent slot; a prompt needs the session's turn slot.
        const slotReady = this.#arrivals.claim();
        if (!this.#tasks.has(row.id) && !slotReady && !(await this.#holdTurnSlot(row))) continue;
        // Waiting for the slot let other calls in: a cancel may have answered this prompt meanwhile.
        if (this.#store.promptState(row.id) === "queued") await this.#run(row);
      }
    } finally {
      this.parts.keepAlive(false);
      this.#arrivals.released();
      await this.parts.slots.releaseTurn();
    }
  }

  /**
   * The tenant's turn slot, held by the session while its queue works, so
   * prompts queued behind a turn never count twice. Over a limit the prompt
   * is answered with -32003 and does not run.
   */
  async #holdTurnSlot(row: PromptRow): Promise<boolean> {
    try {
      await this.parts.slots.holdTurn();
      return true;
    } catch (err) {
      if (this.#store.promptState(row.id) === "queued") await this.#finish(row, { stopReason: null, error: toErrorResponse(err) });
      return false;
    }
  }

  async #resumeTurn({ row, released }: { row: PromptRow; released: Promise<void> }): Promise<void> {
    await released;
    try {
      await this.parts.slots.holdTurn();
    } catch (err) {
      this.#resume = null;
      return this.#finish(row, { stopReason: null, error: toErrorResponse(err) });
    }
    this.#resume = null;
    await this.#run(row, true);
  }

  /** From the session's heartbeat while a turn runs. */
  renewTurnSlot(): void {
    if (this.#draining) void this.parts.slots.renew();
  }

  async #run(row: PromptRow, resume = false): Promise<void> {
    const store = this.#store;
    if (!resume) {
      store.setPromptState(row.id, "running");
      this.#steps.begin(row.id, Date.now());
    }
    const controller = new AbortController();
    const task = this.#tasks.get(row.id);
    this.#current = { row, controller, start: { segment: store.segment(), historyId: store.lastHistoryId(), seq: store.lastSeq() }, task };
    // Usage is counted as it is spent (the turn now, each model call as it ends and each tool call as it starts:
    // `countModelCall`, `countToolCall`), so a turn a restart cuts off still counts.
    if (!resume) this.parts.slots.record(task ? { subagents: 1 } : { turns: 1 });
    let outcome: RunOutcome;
    try {
      outcome = await this.#turn(row, task, controller.signal, resume);
    } catch (err) {
      console.error("turn crashed", { sessionId: store.record()?.sessionId }, err);
      // The cause stays in the log: its message may carry internals (a query's SQL and parameters).
      this.#log.emit(agentMessageChunk("\n\n⚠️ The turn failed inside the service; the operator's log has the cause. Your prompt was kept: /retry runs it again.", this.parts.turn.newId()));
      outcome = { stopReason: null, error: toErrorResponse(internalError("the turn failed inside the service")) };
    } finally {
      this.#current = null;
      this.#injected = [];
    }
    await this.#finish(row, outcome);
  }

  async #turn(row: PromptRow, task: Task | undefined, signal: AbortSignal, resume: boolean): Promise<RunOutcome> {
    const store = this.#store;
    const { turn } = this.parts;
    const userMessageId = turn.newId();
    const author = this.#log.userOf(row.connectionId);
    if (!resume) for (const block of row.prompt) this.#log.emit(userMessageChunk(block, userMessageId, author), { promptedThrough: row.connectionId });
    let prompt = row.prompt;
    // A task's goal is never a slash command, whatever it starts with; a resumed turn continues from its history.
    const command = task || resume ? null : parseSlashCommand(prompt);
    if (command) {
      // `/tools` and `/mcp` describe servers that have settled (at most their 10 s connect timeout).
      await turn.mcp?.ready();
      const result = await runPromptCommand(command, turn, this.parts.settings, row.connectionId, signal);
      if (!("prompt" in result)) return result;
      prompt = result.prompt;
    }
    let released = false;
    const observe = task?.overrides.observe;
    const overrides: TurnOverrides = {
      ...task?.overrides,
      observe: (update) => {
        if (!released) {
          released = true;
          void this.parts.index.release();
        }
        observe?.(update);
      },
    };
    // The index waits until the model has answered: its writes share this thread with the model request.
    this.parts.index.hold();
    try {
      if (!store.record()!.title && !store.record()!.titleLocked) {
        const title = titleFromPrompt(promptText(prompt));
        store.updateRecord({ title });
        this.#log.emit(sessionInfoUpdate(title, new Date().toISOString()));
        this.parts.index.update({ title });
      }
      if (store.record()!.interruptedPrompt !== null) store.updateRecord({ interruptedPrompt: null });
      return await runModelTurn(turn, { prompt, connectionId: row.connectionId, signal, takeInjected: () => this.#takeInjected(), overrides, resume });
    } finally {
      if (!released) void this.parts.index.release();
    }
  }

  #contextWindow(): number {
    return contextWindowFor(this.#store.record()!.model, this.parts.turn.settings);
  }

  #takeInjected(): ChatMessage[] {
    const taken = this.#injected;
    this.#injected = [];
    return taken;
  }

  /** The end of every turn, prompt or task: stored, announced, indexed, then answered. */
  async #finish(row: PromptRow, outcome: RunOutcome, extra: { interrupted?: boolean } = {}): Promise<void> {
    const store = this.#store;
    if (outcome.usage) {
      const used = outcome.usage.promptTokens + outcome.usage.completionTokens;
      store.updateRecord({ lastUsage: used });
      this.#log.emit(usageUpdate(used, this.#contextWindow()));
    }
    const ended = turnRecord(outcome, extra.interrupted === true);
    if (this.#steps.running()?.promptId === row.id) this.#steps.end();
    store.setPromptState(row.id, ended.state, ended.stopReason);
    store.updateRecord({ ...ended.record, lastTurn: { requestId: row.requestId, connectionId: row.connectionId } });
    this.#log.emitTurnEnded({
      sessionId: store.record()!.sessionId,
      // As stored (`turnRecord`): a failed turn has no stop reason, only its error, which was the prompt's answer.
      stopReason: ended.stopReason,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      _meta: { hermes: { requestId: row.requestId, connectionId: row.connectionId, ...(extra.interrupted ? { interrupted: true } : {}) } },
    });
    // The index has the turn before its prompt is answered, so a list right after agrees
    // (only the time of the last use may lag, by at most `TOUCH_EVERY_MS`). With nothing to
    // wait for, the answer is queued right behind `_hermes/turn_ended` and shares its delivery.
    const indexed = this.parts.index.touch();
    if (indexed) await indexed;
    const task = this.#tasks.get(row.id);
    this.#tasks.delete(row.id);
    task?.settle(outcome);
    this.#log.respond(row.connectionId, row.requestId, outcome.error ? { error: outcome.error } : { result: { stopReason: outcome.stopReason ?? "end_turn" } });
    this.parts.turnEnded();
  }
}

