/**
 * A sub-agent's side of its task, inside its own session object: make the
 * session (kind `subagent`, indexed in D1), run the task through the
 * session's prompt runner with the sub-agent's overrides (focused system
 * prompt, restricted tools, the editor reached through the parent, tool
 * calls relayed to it), and report a bounded result. History and updates
 * stay in this session, so `session/load` replays the whole run.
 *
 * The task is stored with the session (`TaskRecord`): a sub-agent restarted
 * mid-task rebuilds its overrides from the stored spec and resumes its turn
 * like any session, and a parent that asks again (its own turn resumed) waits
 * for that run or gets the stored result; the task never runs twice.
 */
import { forwardedMcpTools } from "../mcp/subagent-mcp.js";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { sessionInfoUpdate } from "../acp/updates.js";
import type { SessionIndex } from "../db/session-index.js";
import { createSession } from "../session/create-session.js";
import { toolAllowedInMode } from "../session/modes.js";
import { Outbox } from "../session/update-log.js";
import type { PromptRunner, RunOutcome } from "../session/prompt-runner.js";
import type { SessionRpc } from "../session/session-rpc.js";
import { availableCommands } from "../session/slash-commands.js";
import type { SessionStore } from "../session/session-store.js";
import type { UpstreamTunnels } from "../session/upstream-tunnels.js";
import { DELEGATE_TOOL_NAME, subagentTools } from "./blocked-tools.js";
import { forwardingClientPort } from "./forward-port.js";
import { isRelayed } from "./relay.js";
import { subagentSystemPrompt } from "./subagent-prompt.js";
import { boundSummary, resultWithoutRun, shortLine, statusOf, type SubagentResult, type SubagentStatus } from "./subagent-result.js";
import type { SubagentSpec, SubagentStopCause } from "./subagent-spec.js";
import { taskRunAction, type TaskRecord } from "./task-record.js";
import { MAX_RESUMES, RESUME_WINDOW_MS, type TurnResumeDecision } from "../session/resume-decision.js";
import type { TurnOverrides } from "../session/turn-context.js";
import type { TurnSetup } from "../session/turn-setup.js";

export const AUTO_DENY_REASON = "sub-agents may not ask for permission on this service (HERMES_SUBAGENT_APPROVAL=deny)";

/** The parent's session object as its sub-agent calls it. */
export type ParentLink = Pick<SessionRpc, "forwardEditorRequest" | "relaySubagentUpdates" | "forwardUpstreamMessage">;

/** What a sub-agent's task has beyond what the session sets every turn up with. */
export interface TaskSetup {
  /** The parent's session object, by its id. */
  parent(sessionId: string): ParentLink;
  /** The task as this session stores it. */
  record: TaskRecord;
  /** The D1 index itself: the task writes its session's row at once, not behind the turn's `IndexWriter`. */
  index: SessionIndex;
  /** The session's upstream tunnels: the parent's proxy-hosted upstreams are lent to them for the task. */
  tunnels: Pick<UpstreamTunnels, "lend">;
  maxSpawnDepth: number;
}

interface Run {
  spec: SubagentSpec;
  cause: SubagentStopCause | null;
  /** Why a restart stopped the task, in words for the parent; null otherwise. */
  restartNote: string | null;
  result: Promise<SubagentResult>;
}

/** How the run's turn goes: a new one, or the one a restart cut off. */
type TurnStart = (last: LastMessage, run: Run) => Promise<RunOutcome>;

export class SubagentTask {
  #run: Run | null = null;

  constructor(
    /** What the session sets every turn up with: its log and store, model settings and tools. */
    private readonly setup: TurnSetup,
    private readonly runner: PromptRunner,
    private readonly task: TaskSetup,
    private readonly now: () => number = Date.now,
  ) {}

  get #store(): SessionStore {
    return this.setup.log.store;
  }

  /** From the start of `run` to its end: the session then takes no editor prompts. */
  get running(): boolean {
    return this.#run !== null;
  }

  /** Stops the running task at its next step; a no-op when none runs. */
  interrupt(cause: SubagentStopCause): void {
    const run = this.#run;
    if (!run || run.cause) return;
    run.cause = cause;
    this.runner.cancelAll();
  }

  /** The parent asks for `spec`: a new task runs; the same task asked again is waited for, or its stored result given. */
  run(spec: SubagentSpec): Promise<SubagentResult> {
    const stored = this.task.record.get();
    switch (taskRunAction(stored, spec, this.#run?.spec ?? null)) {
      case "attach":
        return this.#run!.result;
      case "deliver":
        return Promise.resolve(stored!.result!);
      case "refuse":
        return Promise.resolve(resultWithoutRun(spec.taskIndex, spec.subagentId, spec.model, "failed", "This sub-agent is already running a task."));
      case "start":
        return this.#start(spec, this.now(), async (last, run) => {
          await this.#ensureSession(spec);
          this.task.record.begin(spec, this.now());
          // An interrupt that came while the session was being made has no turn to cancel yet.
          return run.cause ? { stopReason: "cancelled" } : this.#turn(spec, last);
        });
    }
  }

  /**
   * After a restart: a task that was running resumes its turn (within the
   * turn bounds) from the stored spec; the parent's call, run again, waits
   * for it. True when its turn runs on (resumed, or begun now), so the
   * sub-agents it delegated to are waited for again.
   */
  recover(released: Promise<void>): boolean {
    const stored = this.task.record.get();
    if (!stored || stored.result || !this.#owns(stored.spec)) {
      this.runner.resumeInterrupted(released, null);
      return false;
    }
    const { spec } = stored;
    let runsOn = false;
    // `#start` calls this before its first await, so `runsOn` is known when it returns.
    void this.#start(spec, stored.startedAt, async (last, run) => {
      const { overrides, done } = this.#overrides(spec, last);
      const found = this.runner.resumeInterrupted(released, overrides);
      if (found.decision?.action === "interrupt") run.restartNote = restartNote(found.decision);
      if (found.outcome) {
        runsOn = found.decision?.action === "resume";
        try {
          return await found.outcome;
        } finally {
          await done();
        }
      }
      // No turn was running: it never began (it begins now), or it ended just before the restart.
      const store = this.#store;
      const began = store.promptsIn("done").length + store.promptsIn("failed").length > 0;
      runsOn = !began;
      await done();
      if (!began) return this.#turn(spec, last);
      run.restartNote = `The service restarted just as this sub-agent ended; its final answer is in its session ${spec.subagentId}.`;
      return { stopReason: "cancelled" };
    });
    return runsOn;
  }

  /** Runs the task's turn as `turn` starts it, and stores and returns its result. Sets `#run` before any await. */
  #start(spec: SubagentSpec, startedAt: number, turn: TurnStart): Promise<SubagentResult> {
    // Set before the first await: an interrupt sent right after this call must find it.
    const run: Run = { spec, cause: null, restartNote: null, result: Promise.resolve(null as never) };
    this.#run = run;
    run.result = this.#finishRun(run, startedAt, turn);
    return run.result;
  }

  async #finishRun(run: Run, started: number, turn: TurnStart): Promise<SubagentResult> {
    const { spec } = run;
    // The limit counts from the task's start, before a restart too.
    const left = spec.timeoutMs ? Math.max(1, spec.timeoutMs - (this.now() - started)) : 0;
    const timer = spec.timeoutMs ? setTimeout(() => this.interrupt("timeout"), left) : undefined;
    const last = new LastMessage();
    let outcome: RunOutcome | null = null;
    let failure: string | null = null;
    try {
      outcome = await turn(last, run);
    } catch (err) {
      console.error("sub-agent task failed", { subagentId: spec.subagentId, parent: spec.parentSessionId }, err);
      failure = `The sub-agent failed inside the service: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      clearTimeout(timer);
      this.#run = null;
    }
    const status: SubagentStatus = failure ? "failed" : statusOf(outcome!, run.cause);
    const tokens = outcome?.totalUsage ?? { promptTokens: 0, completionTokens: 0 };
    if (this.#owns(spec)) {
      await this.task.index.update(spec.subagentId, { endReason: status, updatedAt: this.now() }).catch((err) => console.error("sub-agent index update failed", err));
    }
    const said = summaryText(status, failure ?? run.restartNote, outcome, last.text(), spec.maxModelCalls);
    const result: SubagentResult = {
      task_index: spec.taskIndex,
      subagent_id: spec.subagentId,
      status,
      summary: boundSummary(said, undefined, `sub-agent session ${spec.subagentId}`),
      api_calls: outcome?.modelCalls ?? 0,
      duration_seconds: Math.round((this.now() - started) / 100) / 10,
      model: this.#store.record()?.model ?? spec.model,
      tokens: { input: tokens.promptTokens, output: tokens.completionTokens, total: tokens.promptTokens + tokens.completionTokens },
      tools_used: outcome?.toolsUsed ?? [],
    };
    // Kept before it is returned: a parent that asks again (its turn resumed after a restart) gets it, not a second run.
    if (this.#owns(spec)) this.task.record.finish(result);
    return result;
  }

  /** Whether this object is the sub-agent session `spec` names (not some other session using the id). */
  #owns(spec: SubagentSpec): boolean {
    const record = this.#store.record();
    return record !== null && record.kind === "subagent" && record.parentId === spec.parentSessionId && record.tenant === spec.tenant;
  }

  async #ensureSession(spec: SubagentSpec): Promise<void> {
    const store = this.#store;
    const { index } = this.task;
    if (store.record() && !this.#owns(spec)) throw new Error("another session already uses this sub-agent id");
    if (!store.record()) {
      const conn = { connectionId: "", tenant: spec.tenant, clientCapabilities: spec.clientCapabilities, user: spec.owner ?? null };
      await createSession(store, index, conn, {
        accessRoot: spec.accessRoot ?? spec.parentSessionId,
        sessionId: spec.subagentId,
        cwd: spec.cwd,
        additionalDirectories: spec.additionalDirectories,
        kind: "subagent",
        parentId: spec.parentSessionId,
        rootId: spec.rootId,
        model: spec.model,
        mode: spec.mode,
        parentLineage: spec.parentLineage,
      }, this.setup.settings);
      this.setup.log.emit({ sessionUpdate: "available_commands_update", availableCommands: availableCommands() });
    }
    const title = `Sub-agent ${spec.taskIndex + 1}: ${shortLine(spec.goal, 80)}`;
    // The parent's mode and model now, whatever they were when this session was made.
    store.updateRecord({
      mode: spec.mode,
      model: spec.model,
      reasoningEffort: spec.reasoningEffort,
      title,
      delegation: { depth: spec.depth, role: spec.role, parentToolCallId: spec.parentToolCallId },
    });
    this.setup.log.emit(sessionInfoUpdate(title, new Date(this.now()).toISOString()));
    await index.update(spec.subagentId, { title, mode: spec.mode, model: spec.model, endReason: null, updatedAt: this.now() });
  }

  async #turn(spec: SubagentSpec, last: LastMessage): Promise<RunOutcome> {
    const { overrides, done } = this.#overrides(spec, last);
    try {
      return await this.runner.runTask([{ type: "text", text: spec.goal }], overrides);
    } finally {
      await done();
    }
  }

  /** The task's turn overrides from its spec, and what ends them (the lent tunnels, the relay's last frames). */
  #overrides(spec: SubagentSpec, last: LastMessage): { overrides: TurnOverrides; done(): Promise<void> } {
    const record = this.#store.record()!;
    const parent = this.task.parent(spec.parentSessionId);
    // Ordered and batched, off the turn's path. A parent that no longer knows this
    // sub-agent (it restarted) cannot take its work: the task stops as interrupted.
    const relay = new Outbox((frames) => parent.relaySubagentUpdates(spec.subagentId, frames), () => this.interrupt("interrupted"));
    const client = forwardingClientPort(spec.clientCapabilities, (request) => parent.forwardEditorRequest(spec.subagentId, request));
    const offered = [...this.setup.tools(client), ...forwardedMcpTools(spec.mcpTools ?? [], client)].filter((tool) => toolAllowedInMode(record.mode, tool.kind));
    const tools = subagentTools(offered, spec.role, spec.depth, this.task.maxSpawnDepth);
    const systemPrompt = subagentSystemPrompt({
      goal: spec.goal,
      context: spec.context,
      role: spec.role,
      canDelegate: tools.some((t) => t.name === DELEGATE_TOOL_NAME),
      cwd: record.cwd,
      additionalDirectories: record.additionalDirectories,
      toolNames: tools.map((t) => t.name),
    });
    this.task.tunnels.lend({
      parentSessionId: spec.parentSessionId,
      upstreams: spec.upstreams ?? [],
      forward: (params) => parent.forwardUpstreamMessage(spec.subagentId, params),
    });
    const overrides: TurnOverrides = {
      client,
      tools,
      systemPrompt,
      maxModelCalls: spec.maxModelCalls,
      observe: (update) => {
        last.observe(update);
        if (isRelayed(update)) relay.push(JSON.stringify(update));
      },
      gateLabel: spec.label,
      ...(spec.approval === "deny" ? { autoDeny: AUTO_DENY_REASON } : {}),
    };
    const done = async () => {
      this.task.tunnels.lend(undefined);
      await relay.drained();
    };
    return { overrides, done };
  }
}

/** Why a restarted sub-agent's turn could not resume, for the parent model. */
function restartNote(decision: Extract<TurnResumeDecision, { action: "interrupt" }>): string {
  return decision.reason === "too_many_resumes"
    ? `Stopped: the service restarted while this sub-agent worked, and its turn had already resumed ${MAX_RESUMES} times, the most a turn may.`
    : `Stopped: the service restarted while this sub-agent worked, more than ${RESUME_WINDOW_MS / 60_000} minutes after its task began, too late to resume.`;
}

/** The text of the last agent message: what the sub-agent said at the end. */
class LastMessage {
  #id: string | null | undefined;
  #text = "";

  observe(update: SessionUpdate): void {
    if (update.sessionUpdate !== "agent_message_chunk" || update.content.type !== "text") return;
    if (update.messageId !== this.#id) {
      this.#id = update.messageId;
      this.#text = "";
    }
    this.#text += update.content.text;
  }

  text(): string {
    return this.#text;
  }
}

function summaryText(status: SubagentStatus, failure: string | null, outcome: RunOutcome | null, text: string, maxCalls: number): string {
  if (failure) return failure;
  const said = text.trim();
  const prefix = stopNote(status, outcome, said, maxCalls);
  if (!said) return prefix || "(the sub-agent ended without a final message)";
  return prefix ? `${prefix}\n\n${said}` : said;
}

/** Why the run stopped short, in words the parent model can act on; empty for a finished task. */
function stopNote(status: SubagentStatus, outcome: RunOutcome | null, said: string, maxCalls: number): string {
  if (status === "timeout") return "Stopped: the time limit was reached.";
  if (status === "interrupted") return "Stopped: interrupted.";
  switch (outcome?.stopReason) {
    case "max_turn_requests":
      return `Stopped after ${maxCalls} model calls without finishing.`;
    case "max_tokens":
      return "Stopped: the model's answer was cut off at its output-token limit, so the text below is incomplete.";
    case "refusal":
      return "Stopped: the model refused to answer (its content filter stopped the reply).";
  }
  // A failure the conversation does not already explain (a turn that crashed inside the service, say).
  const error = outcome?.error?.message;
  return status === "failed" && error && !said.includes(error) ? `Failed: ${error.replace(/\.$/, "")}.` : "";
}
