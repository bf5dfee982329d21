/**
 * A session's sub-agents, from the parent's side: spawns each task as a
 * sub-agent session object (through the pool), keeps the ones that run,
 * forwards their editor requests over the parent's connection, relays their
 * tool calls into the parent's log, and stops them on cancel, on
 * `_hermes/subagents/interrupt`, or holds new ones on pause.
 *
 * Which sub-agents run, and which task each works for, is stored with the
 * session. A parent restarted in the middle of a delegation whose turn
 * resumes runs the `delegate_task` call again, which finds each task's
 * sub-agent (it resumes its own turn) and waits for it again, or takes the
 * result it had already delivered (`spawn-ledger.ts`). A parent whose turn
 * does not resume cannot take their results any more, so it stops them and
 * records them as interrupted instead of leaving them orphaned.
 */
import { isSubagentMcpMethod, SubagentMcpCalls, type SubagentMcp } from "../mcp/subagent-mcp.js";
import { RequestError, zUpstreamMessage, type UpstreamMessage } from "@hermes-edge/protocol";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { DelegationSettings } from "../config.js";
import type { SessionIndex } from "../db/session-index.js";
import type { SessionRpc } from "../session/session-rpc.js";
import type { SessionSlots } from "../tenant/session-slots.js";
import type { UpdateLog } from "../session/update-log.js";
import { parentKey, type UpstreamTunnels } from "../session/upstream-tunnels.js";
import { mayDelegate } from "./blocked-tools.js";
import { decorateSubagentUpdate, editorParams, isRelayed, type RelayIds } from "./relay.js";
import { forwardFailure } from "./forward-port.js";
import { PoolAbortedError, SubagentPool } from "./subagent-pool.js";
import { resultWithoutRun, shortLine, type SubagentResult } from "./subagent-result.js";
import { assigned, delivered, taskStart, undelivered } from "./spawn-ledger.js";
import { holdSlotWithin, type SlotRelease } from "./slot-wait.js";
import {
  SUBAGENT_MAX_MODEL_CALLS,
  type DelegatedTask,
  type ForwardedRequest,
  type ForwardOutcome,
  type SpawnOptions,
  type SubagentCommand,
  type SubagentControlResult,
  type SubagentSpawner,
  type SubagentSpec,
} from "./subagent-spec.js";

/** A sub-agent's session object as its parent calls it. */
export type SubagentLink = Pick<SessionRpc, "runSubagentTask" | "interruptSubagentTask" | "upstreamMessage">;

/**
 * How long the parent waits for a sub-agent's answer beyond the task's own
 * time limit (or this default when it has none): an object that never
 * answers must not hold the parent's turn forever.
 */
export const SUBAGENT_ANSWER_GRACE_MS = 30_000;
export const DEFAULT_SUBAGENT_LIMIT_MS = 30 * 60_000;

/** How long a resumed parent holds a sub-agent's editor request until the call that waits for it runs again. */
export const REATTACH_WAIT_MS = 60_000;
/** Updates a sub-agent relays before its parent's call runs again, kept to send then. */
const MAX_HELD_FRAMES = 500;

/** Editor methods a sub-agent may use through its parent; anything else is refused. */
const FORWARDABLE = /^(fs\/|terminal\/|session\/request_permission$)/;

interface Running extends Pick<SpawnOptions, "taskIndex" | "client" | "emit" | "onEvent"> {
  ids: RelayIds;
  controller: AbortController;
}

/** A sub-agent a resumed parent waits for again, before the call it works for has run again. */
interface Adopted {
  /** Its relayed updates meanwhile, sent once the call runs again. */
  frames: string[];
  /** Resolves when the call runs again (true) or the parent gives it up (false). */
  arrived: Promise<boolean>;
  arrive(back: boolean): void;
}

export class Subagents implements SubagentSpawner {
  readonly pool: SubagentPool;
  readonly #running = new Map<string, Running>();
  readonly #adopted = new Map<string, Adopted>();
  /** The session's MCP tools, lent to its sub-agents (set by the session). */
  mcp: SubagentMcp | undefined;
  readonly #mcpCalls = new SubagentMcpCalls();
  /** The models a sub-agent may run on (set by the session): the session's own, proxy-hosted upstreams included. */
  models: (() => string[]) | undefined;
  /** The session's proxy-hosted upstreams, lent to its sub-agents (set by the session). */
  tunnels: UpstreamTunnels | undefined;

  constructor(
    private readonly log: UpdateLog,
    private readonly index: SessionIndex,
    private readonly settings: DelegationSettings,
    private readonly link: (subagentId: string) => SubagentLink,
    /** The tenant's sub-agent slots: a sub-agent over the limit waits in the pool, it does not fail. */
    private readonly slots: Pick<SessionSlots, "holdSubagent">,
    private readonly newId: () => string = () => crypto.randomUUID(),
    private readonly now: () => number = Date.now,
  ) {
    const paused = log.store.record()?.delegation?.spawnPaused === true;
    this.pool = new SubagentPool(settings.maxConcurrentSubagents, { paused });
  }

  /** Whether this session may spawn sub-agents at all (its depth and role, and the limit). */
  canDelegate(): boolean {
    const record = this.log.store.record();
    if (!record) return false;
    return mayDelegate(record.delegation?.role, record.delegation?.depth ?? 0, this.settings.maxSpawnDepth);
  }

  /** After a restart whose turn does not resume: sub-agents this session ran are stopped and recorded as interrupted. */
  async recoverInterrupted(): Promise<string[]> {
    const ids = this.#stored();
    this.#setLedger(undefined);
    if (ids.length === 0) return [];
    await this.#stop(ids);
    this.#remember();
    return ids;
  }

  /**
   * After a restart whose turn resumes: the sub-agents it ran keep running
   * (each resumes its own turn); the resumed turn's `delegate_task` calls run
   * again and wait for them. Until then their updates are held and their
   * editor requests wait.
   */
  adopt(): string[] {
    const ids = this.#stored();
    for (const id of ids) {
      let arrive!: (back: boolean) => void;
      const arrived = new Promise<boolean>((resolve) => (arrive = resolve));
      this.#adopted.set(id, { frames: [], arrived, arrive });
    }
    return ids;
  }

  /**
   * A new turn begins: the last one's calls are history, so their ledger goes;
   * a sub-agent a resumed turn never waited for again is stopped.
   */
  turnBegan(): void {
    this.#setLedger(undefined);
    const orphans = [...this.#adopted.keys()];
    if (orphans.length === 0) return;
    for (const id of orphans) this.#adopted.get(id)!.arrive(false);
    this.#adopted.clear();
    this.#remember();
    void this.#stop(orphans);
  }

  async spawn(task: DelegatedTask, options: SpawnOptions): Promise<SubagentResult> {
    const record = this.log.store.record()!;
    const start = taskStart(record.delegation?.ledger, options.parentToolCallId, options.taskIndex);
    // The call ran before a restart, and this task's sub-agent delivered its result then: it is not asked again.
    if (start.action === "delivered") {
      options.onEvent({ type: "finished", subagentId: start.result.subagent_id, result: start.result });
      return start.result;
    }
    const subagentId = start.action === "reattach" ? start.subagentId : this.newId();
    const models = this.models?.();
    // A sub-agent waited for again runs on the model it was given (the proxy's upstreams may not be back yet).
    if (start.action === "spawn" && task.model !== undefined && models && !models.includes(task.model)) {
      const message = `The model "${task.model}" is not available to sub-agents here; use one of: ${models.join(", ")}.`;
      const result = resultWithoutRun(options.taskIndex, subagentId, task.model, "failed", message);
      options.onEvent({ type: "finished", subagentId, result });
      return result;
    }
    const controller = new AbortController();
    const onParentAbort = () => controller.abort();
    options.signal.addEventListener("abort", onParentAbort, { once: true });
    if (options.signal.aborted) controller.abort();
    const ids = { parentSessionId: record.sessionId, subagentId, parentToolCallId: options.parentToolCallId };
    const entry: Running = { ids, controller, taskIndex: options.taskIndex, client: options.client, emit: options.emit, onEvent: options.onEvent };
    this.#running.set(subagentId, entry);
    if (start.action === "spawn") this.#setLedger(assigned(this.log.store.record()?.delegation?.ledger, options.parentToolCallId, options.taskIndex, subagentId));
    this.#remember();
    this.#reattached(subagentId);
    let result: SubagentResult;
    try {
      options.onEvent({ type: "queued", subagentId, ...(this.pool.paused ? { paused: true } : {}) });
      result = await this.pool.run(() => this.#run(entry, task), controller.signal);
    } catch (err) {
      if (!(err instanceof PoolAbortedError)) throw err;
      result = resultWithoutRun(options.taskIndex, subagentId, record.model, "interrupted", "Interrupted before it started.");
    } finally {
      options.signal.removeEventListener("abort", onParentAbort);
      // Stored before the call's result is made of it: a restart from here on finds it delivered.
      if (result! !== undefined) this.#setLedger(delivered(this.log.store.record()?.delegation?.ledger, options.parentToolCallId, options.taskIndex, result));
      this.#running.delete(subagentId);
      // What the task still has going (a forwarded MCP call, say) stops with it.
      controller.abort();
      this.tunnels?.forget(subagentId);
      this.#remember();
    }
    options.onEvent({ type: "finished", subagentId, result });
    return result;
  }

  /** A sub-agent's editor request, sent over the parent's connection in the parent's name. */
  async forward(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    const adopted = this.#adopted.get(subagentId);
    if (adopted) await Promise.race([adopted.arrived, new Promise((r) => setTimeout(r, REATTACH_WAIT_MS))]);
    const entry = this.#running.get(subagentId);
    if (!entry) return { ok: false, error: { kind: "tool", message: "The task this sub-agent works for has ended." } };
    if (isSubagentMcpMethod(request.method) && this.mcp) return this.#callMcp(subagentId, request, entry.controller.signal);
    if (!FORWARDABLE.test(request.method)) return { ok: false, error: { kind: "tool", message: `${request.method} cannot be sent to the editor.` } };
    try {
      const result = await entry.client.request(request.method, editorParams(request.method, request.params, entry.ids), {
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
        ...(request.cancellable ? { signal: entry.controller.signal } : {}),
      });
      return { ok: true, result };
    } catch (err) {
      return forwardFailure(err);
    }
  }

  /**
   * A message of a sub-agent's tunnel to a proxy-hosted upstream, sent on the
   * parent's connection; the proxy's answers are relayed back to it. False
   * when the sub-agent no longer runs, the message is malformed, or the parent
   * does not reach that upstream (the sub-agent's call then fails, naming it).
   */
  forwardUpstream(subagentId: string, params: unknown): boolean {
    const parsed = zUpstreamMessage.safeParse(params);
    if (!parsed.success || !this.#running.has(subagentId) || !this.tunnels) return false;
    const from = parentKey(this.log.store.record()!.sessionId);
    return this.tunnels.relay(subagentId, parsed.data as UpstreamMessage, (answer) => this.link(subagentId).upstreamMessage(from, answer));
  }

  /** A sub-agent's tool calls, logged and sent as the parent's, in the order it made them. */
  relay(subagentId: string, frames: string[]): boolean {
    const adopted = this.#adopted.get(subagentId);
    if (adopted) {
      adopted.frames.push(...frames);
      adopted.frames.splice(0, Math.max(0, adopted.frames.length - MAX_HELD_FRAMES));
      return true;
    }
    const entry = this.#running.get(subagentId);
    if (!entry) return false;
    for (const frame of frames) {
      const update = JSON.parse(frame) as SessionUpdate;
      if (!isRelayed(update)) continue;
      entry.emit(decorateSubagentUpdate(update, entry.ids));
      if (update.sessionUpdate === "tool_call") entry.onEvent({ type: "tool", subagentId, title: update.title });
    }
    return true;
  }

  /** `_hermes/subagents/*` and their REST twins; the caller has checked the tenant. */
  control(command: SubagentCommand): SubagentControlResult {
    switch (command.action) {
      case "interrupt": {
        const entry = this.#running.get(command.subagentId);
        if (!entry) throw new RequestError(-32002, "Resource not found", { detail: "no running sub-agent with that id in this session" });
        entry.controller.abort();
        return { ...this.state(), interrupted: command.subagentId };
      }
      case "pause":
      case "resume":
        return this.#setPaused(command.action === "pause");
    }
  }

  state(): SubagentControlResult {
    return { paused: this.pool.paused, running: this.pool.running, waiting: this.pool.waiting, subagentIds: [...this.#running.keys()] };
  }

  #setPaused(paused: boolean): SubagentControlResult {
    if (paused) this.pool.pause();
    else this.pool.resume();
    const record = this.log.store.record();
    if (record) this.log.store.updateRecord({ delegation: { ...record.delegation, spawnPaused: paused } });
    return this.state();
  }

  #remember(): void {
    const record = this.log.store.record();
    if (record) this.log.store.updateRecord({ delegation: { ...record.delegation, running: [...new Set([...this.#running.keys(), ...this.#adopted.keys()])] } });
  }

  #setLedger(ledger: ReturnType<typeof assigned> | undefined): void {
    const record = this.log.store.record();
    if (!record || (ledger === undefined && record.delegation?.ledger === undefined)) return;
    const { ledger: _old, ...rest } = record.delegation ?? {};
    this.log.store.updateRecord({ delegation: ledger ? { ...rest, ledger } : rest });
  }

  /** Sub-agents the stored record says run: those of live calls, and those the ledger waits for. */
  #stored(): string[] {
    const delegation = this.log.store.record()?.delegation;
    return [...new Set([...(delegation?.running ?? []), ...undelivered(delegation?.ledger)])];
  }

  async #stop(ids: string[]): Promise<void> {
    await Promise.allSettled(
      ids.flatMap((id) => [this.link(id).interruptSubagentTask("interrupted"), this.index.update(id, { endReason: "interrupted", updatedAt: this.now() })]),
    );
  }

  /** A call waits for an adopted sub-agent again: what it relayed meanwhile goes out now, and its held requests go on. */
  #reattached(subagentId: string): void {
    const adopted = this.#adopted.get(subagentId);
    if (!adopted) return;
    this.#adopted.delete(subagentId);
    if (adopted.frames.length > 0) this.relay(subagentId, adopted.frames);
    adopted.arrive(true);
  }

  async #run(entry: Running, task: DelegatedTask): Promise<SubagentResult> {
    const { subagentId } = entry.ids;
    let release: SlotRelease;
    const limitMs = task.timeoutMs ?? DEFAULT_SUBAGENT_LIMIT_MS;
    const started = this.now();
    try {
      const onWait = (max: number) => entry.onEvent({ type: "queued", subagentId, tenantLimit: max });
      release = await holdSlotWithin((signal) => this.slots.holdSubagent(subagentId, signal, onWait), entry.controller.signal, limitMs);
    } catch (err) {
      const model = this.log.store.record()!.model;
      if (entry.controller.signal.aborted) return resultWithoutRun(entry.taskIndex, subagentId, model, "interrupted", "Interrupted before it started.");
      return resultWithoutRun(entry.taskIndex, subagentId, model, "failed", err instanceof Error ? err.message : String(err));
    }
    // The wait counted against the task's time limit; the run gets what is left.
    const left = Math.max(1, limitMs - (this.now() - started));
    try {
      return await this.#runHolding(entry, { ...task, timeoutMs: left });
    } finally {
      await release();
    }
  }

  async #runHolding(entry: Running, task: DelegatedTask): Promise<SubagentResult> {
    const { subagentId } = entry.ids;
    entry.onEvent({ type: "started", subagentId });
    const spec = this.#spec(entry, task);
    const link = this.link(subagentId);
    const interrupt = () => void link.interruptSubagentTask("interrupted").catch(() => undefined);
    const limitMs = (task.timeoutMs ?? DEFAULT_SUBAGENT_LIMIT_MS) + SUBAGENT_ANSWER_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // Calls on one stub arrive in order, so the interrupt can never overtake the run.
      const running = link.runSubagentTask(spec);
      if (entry.controller.signal.aborted) interrupt();
      else entry.controller.signal.addEventListener("abort", interrupt, { once: true });
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(limitMs / 1000)} s`)), limitMs);
      });
      return await Promise.race([running, silent]);
    } catch (err) {
      console.error("sub-agent call failed", { parent: entry.ids.parentSessionId, subagentId }, err);
      interrupt();
      await this.index.update(subagentId, { endReason: "failed", updatedAt: this.now() }).catch(() => undefined);
      const reason = err instanceof Error ? err.message : String(err);
      return resultWithoutRun(entry.taskIndex, subagentId, spec.model, "failed", `The sub-agent's session could not be reached: ${reason}`);
    } finally {
      clearTimeout(timer);
      entry.controller.signal.removeEventListener("abort", interrupt);
    }
  }

  async #callMcp(subagentId: string, request: ForwardedRequest, signal: AbortSignal): Promise<ForwardOutcome> {
    try {
      return { ok: true, result: await this.#mcpCalls.handle(this.mcp!, subagentId, request.method, request.params, signal) };
    } catch (err) {
      return forwardFailure(err);
    }
  }

  /** Read when the sub-agent starts, not when it was queued: it follows the parent's mode and model as they are now. */
  #spec(entry: Running, task: DelegatedTask): SubagentSpec {
    const record = this.log.store.record()!;
    return {
      tenant: record.tenant,
      owner: record.owner ?? null,
      accessRoot: record.accessRoot ?? record.sessionId,
      parentSessionId: record.sessionId,
      parentToolCallId: entry.ids.parentToolCallId,
      subagentId: entry.ids.subagentId,
      taskIndex: entry.taskIndex,
      goal: task.goal,
      ...(task.context !== undefined ? { context: task.context } : {}),
      role: task.role,
      depth: (record.delegation?.depth ?? 0) + 1,
      maxModelCalls: SUBAGENT_MAX_MODEL_CALLS,
      ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
      model: task.model ?? record.model,
      mode: record.mode,
      reasoningEffort: record.reasoningEffort,
      cwd: record.cwd,
      additionalDirectories: record.additionalDirectories,
      rootId: record.rootId,
      parentLineage: record.lineage,
      clientCapabilities: entry.client.capabilities,
      label: `sub-agent ${entry.taskIndex + 1}: ${shortLine(task.goal, 48)}`,
      approval: this.settings.subagentApproval,
      ...(this.mcp ? { mcpTools: this.mcp.descriptors() } : {}),
      ...(this.tunnels ? { upstreams: this.tunnels.declared() } : {}),
    };
  }
}
