/**
 * The child's side of a delegated task, inside the sub-agent's own session
 * object: create the session (kind `subagent`, indexed in D1), run one turn
 * with the focused prompt and the restricted tools, reach the editor through
 * the parent, relay tool calls to it, and report a bounded result. History
 * and updates stay in this session, so `session/load` replays the whole run.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import { sessionInfoUpdate, userMessageChunk } from "../acp/updates.js";
import type { ModelProvider } from "../agent/model-provider.js";
import type { ModelSettings } from "../config.js";
import type { SegmentIndex } from "../db/segment-index.js";
import type { SessionIndex } from "../db/session-index.js";
import { createSession } from "../session/create-session.js";
import { runModelTurn, type TurnPorts } from "../session/model-turn.js";
import { toolAllowedInMode } from "../session/modes.js";
import { Outbox } from "../session/outbox.js";
import type { SessionRuntime } from "../session/session-runtime.js";
import { availableCommands } from "../session/slash-commands.js";
import { childTools, DELEGATE_TOOL_NAME } from "./blocked-tools.js";
import { childSystemPrompt } from "./child-prompt.js";
import { boundSummary, resultWithoutRun, shortLine, statusOf, type ChildResult, type ChildStatus, type StopCause } from "./child-result.js";
import type { ChildSpec, ForwardedRequest, ForwardOutcome } from "./delegate-port.js";
import { forwardingClientPort } from "./forward-port.js";
import { isRelayed } from "./relay.js";

export const AUTO_DENY_REASON = "sub-agents may not ask for permission on this service (HERMES_SUBAGENT_APPROVAL=deny)";

/** The parent session object as a child sees it. */
export interface ParentLink {
  forwardClientRequest(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome>;
  relayChildUpdates(subagentId: string, frames: string[]): Promise<boolean>;
}

export interface ChildRunPorts {
  runtime: SessionRuntime;
  index: SessionIndex;
  segments: SegmentIndex;
  settings: ModelSettings;
  turn: TurnPorts;
  maxSpawnDepth: number;
  parent(sessionId: string): ParentLink;
  keepAlive(running: boolean): void;
  now(): number;
}

type TurnResult = Awaited<ReturnType<typeof runModelTurn>>;

export class ChildRunner {
  #run: { controller: AbortController; cause: StopCause } | null = null;

  constructor(private readonly ports: ChildRunPorts) {}

  get running(): boolean {
    return this.#run !== null;
  }

  /** Stops the running task at its next step; a no-op when none runs. */
  interrupt(cause: "interrupted" | "timeout"): void {
    const run = this.#run;
    if (!run || run.controller.signal.aborted) return;
    run.cause = cause;
    run.controller.abort();
  }

  async run(spec: ChildSpec): Promise<ChildResult> {
    if (this.#run) return resultWithoutRun(spec.taskIndex, spec.subagentId, spec.model, "failed", "This sub-agent is already running a task.");
    // Set before the first await: an interrupt sent right after this call must find it.
    const run: { controller: AbortController; cause: StopCause } = { controller: new AbortController(), cause: null };
    this.#run = run;
    const started = this.ports.now();
    const tally = { input: 0, output: 0 };
    const last = new LastMessage();
    const timer = spec.timeoutMs ? setTimeout(() => this.interrupt("timeout"), spec.timeoutMs) : undefined;
    this.ports.keepAlive(true);
    let outcome: TurnResult | null = null;
    let failure: string | null = null;
    let promptId: number | null = null;
    try {
      await this.#ensureSession(spec);
      promptId = this.#startPrompt(spec);
      outcome = await this.#turn(spec, run.controller.signal, tally, last);
    } catch (err) {
      console.error("sub-agent run failed", err);
      failure = `The sub-agent failed inside the service: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      clearTimeout(timer);
    }
    const status: ChildStatus = failure ? "failed" : statusOf(outcome!, run.cause);
    const result: ChildResult = {
      task_index: spec.taskIndex,
      subagent_id: spec.subagentId,
      status,
      summary: boundSummary(summaryText(status, failure, outcome, last.text(), spec.maxModelCalls), undefined, `sub-agent session ${spec.subagentId}`),
      api_calls: outcome?.modelCalls ?? 0,
      duration_seconds: Math.round((this.ports.now() - started) / 100) / 10,
      model: this.ports.runtime.store.record()?.model ?? spec.model,
      tokens: { input: tally.input, output: tally.output, total: tally.input + tally.output },
      tools_used: outcome?.toolsUsed ?? [],
    };
    try {
      await this.#finish(spec, promptId, status, outcome?.stopReason ?? "end_turn");
    } finally {
      this.#run = null;
      this.ports.keepAlive(false);
    }
    return result;
  }

  async #ensureSession(spec: ChildSpec): Promise<void> {
    const { runtime, index } = this.ports;
    const existing = runtime.store.record();
    if (existing && (existing.kind !== "subagent" || existing.parentId !== spec.parentSessionId || existing.tenant !== spec.tenant)) {
      throw new Error("another session already uses this sub-agent id");
    }
    if (!existing) {
      const conn = { connectionId: "", tenant: spec.tenant, clientCapabilities: spec.clientCapabilities };
      const init = {
        sessionId: spec.subagentId,
        cwd: spec.cwd,
        additionalDirectories: spec.additionalDirectories,
        kind: "subagent" as const,
        parentId: spec.parentSessionId,
        rootId: spec.rootId,
        model: spec.model,
        mode: spec.mode,
        parentLineage: spec.parentLineage,
      };
      await createSession(runtime.store, index, this.ports.segments, conn, init, this.ports.settings);
      runtime.emit({ sessionUpdate: "available_commands_update", availableCommands: availableCommands() });
    }
    const title = `Sub-agent ${spec.taskIndex + 1}: ${shortLine(spec.goal, 80)}`;
    // The parent's mode and model now, whatever they were when this session was made.
    runtime.store.updateRecord({
      mode: spec.mode,
      model: spec.model,
      reasoningEffort: spec.reasoningEffort,
      title,
      delegation: { depth: spec.depth, role: spec.role, parentToolCallId: spec.parentToolCallId },
    });
    runtime.emit(sessionInfoUpdate(title, new Date(this.ports.now()).toISOString()));
    await index.update(spec.subagentId, { title, mode: spec.mode, model: spec.model, endReason: null, updatedAt: this.ports.now() });
  }

  /** The task is stored like a prompt, so a restart mid-run is recorded as interrupted, never lost. */
  #startPrompt(spec: ChildSpec): number {
    const { store } = this.ports.runtime;
    const prompt: ContentBlock[] = [{ type: "text", text: spec.goal }];
    const id = store.enqueuePrompt(null, null, prompt, this.ports.now());
    store.setPromptState(id, "running");
    this.ports.runtime.emit(userMessageChunk(prompt[0]!, crypto.randomUUID()));
    return id;
  }

  async #turn(spec: ChildSpec, signal: AbortSignal, tally: { input: number; output: number }, last: LastMessage): Promise<TurnResult> {
    const { runtime, turn } = this.ports;
    const record = runtime.store.record()!;
    const parent = this.ports.parent(spec.parentSessionId);
    // Ordered, batched, and off the turn's path: the same outbox that feeds connections.
    const relay = new Outbox((frames) => parent.relayChildUpdates(spec.subagentId, frames), () => undefined);
    const emit = (update: SessionUpdate) => {
      runtime.emit(update);
      last.observe(update);
      if (isRelayed(update)) relay.push(JSON.stringify(update));
    };
    const client = forwardingClientPort(spec.clientCapabilities, (request) => parent.forwardClientRequest(spec.subagentId, request));
    const offered = turn.tools(client).filter((tool) => toolAllowedInMode(record.mode, tool.kind));
    const tools = childTools(offered, spec.role, spec.depth, this.ports.maxSpawnDepth);
    const systemPrompt = childSystemPrompt({
      goal: spec.goal,
      context: spec.context,
      role: spec.role,
      canDelegate: tools.some((t) => t.name === DELEGATE_TOOL_NAME),
      cwd: record.cwd,
      additionalDirectories: record.additionalDirectories,
      toolNames: tools.map((t) => t.name),
    });
    try {
      return await runModelTurn(
        runtime,
        { ...turn, provider: () => tallying(turn.provider(), tally) },
        {
          prompt: [{ type: "text", text: spec.goal }],
          connectionId: null,
          signal,
          takeInjected: () => [],
          overrides: {
            client,
            tools,
            systemPrompt,
            maxModelCalls: spec.maxModelCalls,
            emit,
            gateLabel: spec.label,
            ...(spec.approval === "deny" ? { autoDeny: AUTO_DENY_REASON } : {}),
          },
        },
      );
    } finally {
      await relay.drained();
    }
  }

  async #finish(spec: ChildSpec, promptId: number | null, status: ChildStatus, stopReason: TurnResult["stopReason"]): Promise<void> {
    const { runtime, index } = this.ports;
    const record = runtime.store.record();
    // Nothing to record when the session could not be made (or the id belongs to another session).
    if (!record || record.kind !== "subagent" || record.parentId !== spec.parentSessionId) return;
    if (promptId !== null) runtime.store.setPromptState(promptId, "done", stopReason);
    runtime.store.updateRecord({ lastStopReason: stopReason, lastTurn: { requestId: null, connectionId: null } });
    runtime.emitTurnEnded({ sessionId: record.sessionId, stopReason, _meta: { hermes: { requestId: null, connectionId: null } } });
    await index.update(spec.subagentId, { endReason: status, updatedAt: this.ports.now() }).catch((err) => console.error("sub-agent index update failed", err));
  }
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

function summaryText(status: ChildStatus, failure: string | null, outcome: TurnResult | null, text: string, maxCalls: number): string {
  if (failure) return failure;
  const said = text.trim();
  const prefix =
    status === "timeout"
      ? "Stopped: the time limit was reached."
      : status === "interrupted"
        ? "Stopped: interrupted."
        : outcome?.stopReason === "max_turn_requests"
          ? `Stopped after ${maxCalls} model calls without finishing.`
          : "";
  if (!said) return prefix || "(the sub-agent ended without a final message)";
  return prefix ? `${prefix}\n\n${said}` : said;
}

/** Counts tokens over every model call of the run (the turn loop keeps only the last call's usage). */
function tallying(provider: ModelProvider | null, tally: { input: number; output: number }): ModelProvider | null {
  if (!provider) return null;
  return {
    async *stream(request) {
      const result = yield* provider.stream(request);
      if (result.usage) {
        tally.input += result.usage.promptTokens;
        tally.output += result.usage.completionTokens;
      }
      return result;
    },
  };
}
