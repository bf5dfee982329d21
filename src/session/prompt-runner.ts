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
import { runModelTurn, type TurnResult } from "./model-turn.js";
import { TurnContext, type TurnOverrides } from "./turn-context.js";
import type { TurnSetup } from "./turn-setup.js";
import { runPromptCommand } from "./prompt-command.js";
import type { PromptRow, RequestId } from "./session-store.js";
import { parseSlashCommand } from "./slash-commands.js";
import { SlotArrivals } from "./slot-arrivals.js";
import { turnRecord } from "./turn-record.js";
import { decideTurnResume, resumeLine, type TurnResumeDecision } from "./resume-decision.js";

/** How a turn ended, as its prompt's response or its task's caller sees it. */
export type RunOutcome = TurnResult & { error?: ErrorResponse | undefined };

/** A sub-agent's task waiting in the queue: its overrides and who waits for the outcome. */
interface Task {
  overrides: TurnOverrides;
  settle(outcome: RunOutcome): void;
}

/** What a restarted runner found: the decision for the turn it found running, and a task's outcome to come. */
export interface ResumeFound {
  /** Null when no turn was running, or it could not resume (a sub-agent's task without its spec). */
  decision: TurnResumeDecision | null;
  /** For a sub-agent's task: how its turn ends (resumed, or recorded as interrupted). */
  outcome: Promise<RunOutcome> | null;
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
  #resume: { row: PromptRow; released: Promise<void>; cancelled: boolean } | null = null;

  constructor(private readonly setup: TurnSetup) {
    this.#arrivals = new SlotArrivals(setup.slots);
  }

  get #log() {
    return this.setup.log;
  }

  get #store() {
    return this.setup.log.store;
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
    return this.setup.steps;
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
    let startsNow = false;
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
      // First in an idle queue with its slot in hand: stored as running, its turn starts before anything else can run.
      startsNow = !cancelled && !this.#draining && this.#arrivals.ready && this.#store.nextQueued() === undefined;
    }
    const row = this.#store.enqueuePrompt(conn.connectionId, requestId, prompt, Date.now(), startsNow ? "running" : "queued");
    if (!cancelled) return this.#drain(startsNow ? row : undefined);
    await this.#finish(row, { stopReason: "cancelled" });
  }

  /** A sub-agent's task: the same lifecycle as a prompt, with overrides; resolves when its turn ends. */
  runTask(prompt: ContentBlock[], overrides: TurnOverrides): Promise<RunOutcome> {
    return new Promise((settle) => {
      const { id } = this.#store.enqueuePrompt(null, null, prompt, Date.now());
      this.#tasks.set(id, { overrides, settle });
      this.#drain();
    });
  }

  /** `session/cancel` (or a sub-agent interrupted): the running turn ends `cancelled`, queued ones too. */
  cancelAll(): void {
    this.#arrivals.cancelAll();
    // A resumed turn waiting for its slot has no controller yet: it ends cancelled once it would start.
    if (this.#resume) this.#resume.cancelled = true;
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
   * completed step, within the bounds (`decideTurnResume`); past them (or for
   * a sub-agent's task whose overrides cannot be rebuilt) it is recorded as
   * interrupted with its prompt kept for `/retry`, never silently lost.
   *
   * @param released the old instance's turn slot going back, before the resumed turn takes one.
   * @param task a sub-agent's task: its overrides, rebuilt from the stored spec; null when they cannot be.
   */
  resumeInterrupted(released: Promise<void>, task?: TurnOverrides | null): ResumeFound {
    const store = this.#store;
    const row = store.promptsIn("running")[0];
    const turn = this.#steps.running();
    const outcome = row && task ? new Promise<RunOutcome>((settle) => this.#tasks.set(row.id, { overrides: task, settle })) : null;
    if (row && turn?.promptId === row.id && task !== null) {
      const decision = decideTurnResume(turn, Date.now());
      if (decision.action === "resume") {
        this.#steps.resumed(decision.resumes);
        this.#resume = { row, released, cancelled: false };
        this.#log.emit(agentMessageChunk(resumeLine(decision.resumes), this.setup.newId()));
        this.#drain();
      } else this.#recordInterrupted();
      return { decision, outcome };
    }
    this.#recordInterrupted();
    return { decision: null, outcome };
  }

  #recordInterrupted(): void {
    const store = this.#store;
    const cut = [...store.promptsIn("running"), ...store.promptsIn("queued")];
    if (cut.length > 0) {
      const texts = cut.map((r) => promptText(r.prompt));
      for (const message of unansweredToolResults(store.history(), "Not run: the service restarted during this turn.")) store.appendHistory(message);
      store.updateRecord({ interruptedPrompt: texts.join("\n\n") });
      this.#log.emit(
        agentMessageChunk(
          `\n\n⚠️ The service restarted while this turn was running, so it stopped early. Your prompt was kept:\n\n> ${texts[0]!.slice(0, 500)}\n\nUse /retry to run it again.`,
          this.setup.newId(),
        ),
      );
      // The turn's own row ends its steps (and counts it) in `#finish`.
      for (const row of cut) void this.#finish(row, { stopReason: "cancelled" }, { interrupted: true });
    }
    // Steps no running row owns (or left when no row was cut) go too.
    this.#steps.end();
  }

  #actNow(conn: ConnectionRef, requestId: RequestId, name: "steer" | "queue", text: string): void {
    if (name === "steer") {
      this.#injected.push({ role: "user", content: `Guidance from the user while you work: ${text}` });
      this.#log.emit(agentMessageChunk(`↪ Guidance noted; the running turn will follow it from its next step.`, this.setup.newId()));
    } else {
      this.#store.enqueuePrompt(null, null, [{ type: "text", text }], Date.now());
      this.#log.emit(agentMessageChunk(`Queued: ${text.slice(0, 200)}`, this.setup.newId()));
    }
    this.#log.respond(conn.connectionId, requestId, { result: { stopReason: "end_turn" } });
  }

  /** Works through the queue, if it is not already; `first`, stored as running, runs before it. */
  #drain(first?: PromptRow): void {
    this.#draining ??= this.#work(first).finally(() => {
      this.#draining = null;
      // A prompt that arrived while the finished queue was giving its slot back.
      if (this.#store.nextQueued()) this.#drain();
    });
  }

  async #work(first: PromptRow | undefined): Promise<void> {
    this.setup.keepAlive(true);
    try {
      if (this.#resume) await this.#resumeTurn(this.#resume);
      if (first) {
        this.#arrivals.claim(); // `enqueue` saw the slot ready, and nothing ran since
        await this.#run(first);
      }
      for (let row = this.#store.nextQueued(); row; row = this.#store.nextQueued()) {
        // A sub-agent's task runs in its parent's sub-agent slot; a prompt needs the session's turn slot.
        const slotReady = this.#arrivals.claim();
        if (!this.#tasks.has(row.id) && !slotReady && !(await this.#holdTurnSlot(row))) continue;
        // Waiting for the slot let other calls in: a cancel may have answered this prompt meanwhile.
        if (this.#store.isQueued(row.id)) await this.#run(row);
      }
    } finally {
      this.setup.keepAlive(false);
      this.#arrivals.released();
      await this.setup.slots.queueDrained();
    }
  }

  /**
   * The tenant's turn slot, held by the session while its queue works, so
   * prompts queued behind a turn never count twice. Over a limit the prompt
   * is answered with -32003 and does not run.
   */
  async #holdTurnSlot(row: PromptRow): Promise<boolean> {
    try {
      await this.setup.slots.holdTurn();
      return true;
    } catch (err) {
      if (this.#store.isQueued(row.id)) await this.#finish(row, { stopReason: null, error: toErrorResponse(err) });
      return false;
    }
  }

  async #resumeTurn(resume: { row: PromptRow; released: Promise<void>; cancelled: boolean }): Promise<void> {
    const { row, released } = resume;
    await released;
    try {
      // A sub-agent's task runs in its parent's sub-agent slot, as before the restart.
      if (!this.#tasks.has(row.id) && !resume.cancelled) await this.setup.slots.holdTurn();
    } catch (err) {
      this.#resume = null;
      return this.#finish(row, { stopReason: null, error: toErrorResponse(err) });
    }
    this.#resume = null;
    if (resume.cancelled) return this.#finish(row, { stopReason: "cancelled" });
    await this.#run(row, true);
  }

  /** From the session's heartbeat while a turn runs. */
  renewTurnSlot(): void {
    if (this.#draining) void this.setup.slots.renew();
  }

  async #run(row: PromptRow, resume = false): Promise<void> {
    const store = this.#store;
    const task = this.#tasks.get(row.id);
    if (!resume) {
      if (row.state === "queued") store.setPromptState(row.id, "running");
      // Usage is counted as it is spent (each model call as it ends and each tool call as it starts:
      // `countModelCall`, `countToolCall`); the turn itself when it ends, however it ends (`#finish`).
      this.#steps.begin(row.id, Date.now(), task ? { subagents: 1 } : { turns: 1 });
      this.setup.turnBegan?.();
    }
    const controller = new AbortController();
    this.#current = { row, controller, start: { segment: store.segment(), historyId: store.lastHistoryId(), seq: store.lastSeq() }, task };
    let outcome: RunOutcome;
    try {
      outcome = await this.#turn(row, task, controller.signal, resume);
    } catch (err) {
      console.error("turn crashed", { sessionId: store.record()?.sessionId }, err);
      // The cause stays in the log: its message may carry internals (a query's SQL and parameters).
      this.#log.emit(agentMessageChunk("\n\n⚠️ The turn failed inside the service; the operator's log has the cause. Your prompt was kept: /retry runs it again.", this.setup.newId()));
      outcome = { stopReason: null, error: toErrorResponse(internalError("the turn failed inside the service")) };
    } finally {
      this.#current = null;
      this.#injected = [];
    }
    await this.#finish(row, outcome);
  }

  async #turn(row: PromptRow, task: Task | undefined, signal: AbortSignal, resume: boolean): Promise<RunOutcome> {
    const store = this.#store;
    const { setup } = this;
    const userMessageId = setup.newId();
    const author = this.#log.userOf(row.connectionId);
    if (!resume) for (const block of row.prompt) this.#log.emit(userMessageChunk(block, userMessageId, author), { promptedThrough: row.connectionId });
    let released = false;
    const observe = task?.overrides.observe;
    const ctx = new TurnContext(setup, row.connectionId, signal, {
      ...task?.overrides,
      observe: (update) => {
        if (!released) {
          released = true;
          void this.setup.index.release();
        }
        observe?.(update);
      },
    });
    let prompt = row.prompt;
    // A task's goal is never a slash command, whatever it starts with; a resumed turn continues from its history.
    const command = task || resume ? null : parseSlashCommand(prompt);
    if (command) {
      // `/tools` and `/mcp` describe servers that have settled (at most their 10 s connect timeout).
      await setup.mcp?.ready();
      const result = await runPromptCommand(command, ctx, this.setup.config);
      if (!("prompt" in result)) return result;
      prompt = result.prompt;
    }
    // The index waits until the model has answered: its writes share this thread with the model request.
    this.setup.index.hold();
    try {
      const record = ctx.record();
      if (!record.title && !record.titleLocked) {
        const title = titleFromPrompt(promptText(prompt));
        store.updateRecord({ title });
        this.#log.emit(sessionInfoUpdate(title, new Date().toISOString()));
        this.setup.index.update({ title });
      }
      if (ctx.record().interruptedPrompt !== null) store.updateRecord({ interruptedPrompt: null });
      return await runModelTurn(ctx, { prompt, takeInjected: () => this.#takeInjected(), resume });
    } finally {
      if (!released) void this.setup.index.release();
    }
  }

  #contextWindow(): number {
    return contextWindowFor(this.#store.record()!.model, this.setup.settings);
  }

  #takeInjected(): ChatMessage[] {
    const taken = this.#injected;
    this.#injected = [];
    return taken;
  }

  /** The end of every turn, prompt or task: stored, announced, indexed, then answered. */
  async #finish(row: PromptRow, outcome: RunOutcome, extra: { interrupted?: boolean } = {}): Promise<void> {
    const store = this.#store;
    const used = outcome.usage ? outcome.usage.promptTokens + outcome.usage.completionTokens : undefined;
    if (used !== undefined) this.#log.emit(usageUpdate(used, this.#contextWindow()));
    const ended = turnRecord(outcome, extra.interrupted === true);
    const counts = this.#steps.running()?.promptId === row.id ? this.#steps.end() : undefined;
    store.setPromptState(row.id, ended.state, ended.stopReason);
    const last = {
      ...ended.record,
      lastTurn: { requestId: row.requestId, connectionId: row.connectionId },
      ...(used !== undefined ? { lastUsage: used } : {}),
    };
    if (counts) this.setup.slots.record(counts, last);
    else store.updateRecord(last);
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
    const indexed = this.setup.index.touch();
    if (indexed) await indexed;
    const task = this.#tasks.get(row.id);
    this.#tasks.delete(row.id);
    task?.settle(outcome);
    this.#log.respond(row.connectionId, row.requestId, outcome.error ? { error: outcome.error } : { result: { stopReason: outcome.stopReason ?? "end_turn" } });
    this.setup.turnEnded();
  }
}

