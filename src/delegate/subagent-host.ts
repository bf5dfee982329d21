/**
 * The parent's side of delegation, inside the parent session object: spawns
 * each task as a child session object (through the pool), keeps the children
 * that run, forwards their editor requests over the parent's connection,
 * relays their tool calls into the parent's log, and stops them on cancel,
 * on `_hermes/subagents/interrupt`, or holds new ones on pause.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { DelegationSettings } from "../config.js";
import type { SessionIndex } from "../db/session-index.js";
import type { SessionRuntime } from "../session/session-runtime.js";
import { mayDelegate } from "./blocked-tools.js";
import { ChildPool, PoolAbortedError } from "./child-pool.js";
import { resultWithoutRun, shortLine, type ChildResult } from "./child-result.js";
import {
  CHILD_MAX_MODEL_CALLS,
  type ChildSpec,
  type DelegatedTask,
  type DelegatePort,
  type ForwardedRequest,
  type ForwardOutcome,
  type SpawnOptions,
} from "./delegate-port.js";
import { forwardFailure } from "./forward-port.js";
import { decorateChildUpdate, editorParams, isRelayed, type RelayIds } from "./relay.js";

/** A child session object as its parent sees it. */
export interface ChildLink {
  runChild(spec: ChildSpec): Promise<ChildResult>;
  interruptChild(cause: "interrupted" | "timeout"): Promise<void>;
}

export interface HostPorts {
  runtime: SessionRuntime;
  index: SessionIndex;
  settings: DelegationSettings;
  child(subagentId: string): ChildLink;
  newId(): string;
  now(): number;
}

/** Editor methods a child may use through its parent; anything else is refused. */
const FORWARDABLE = /^(fs\/|terminal\/|session\/request_permission$)/;

interface ActiveChild extends Pick<SpawnOptions, "taskIndex" | "client" | "emit" | "onEvent"> {
  ids: RelayIds;
  controller: AbortController;
}

export interface SubagentsState {
  paused: boolean;
  running: number;
  waiting: number;
  subagentIds: string[];
}

export class SubagentHost implements DelegatePort {
  readonly pool: ChildPool;
  readonly #active = new Map<string, ActiveChild>();

  constructor(private readonly ports: HostPorts) {
    const paused = ports.runtime.store.record()?.delegation?.spawnPaused === true;
    this.pool = new ChildPool(ports.settings.maxConcurrentChildren, { paused });
  }

  /** Whether this session may spawn sub-agents at all (its depth and role, and the limit). */
  canDelegate(): boolean {
    const record = this.ports.runtime.store.record();
    if (!record) return false;
    return mayDelegate(record.delegation?.role, record.delegation?.depth ?? 0, this.ports.settings.maxSpawnDepth);
  }

  async spawn(task: DelegatedTask, options: SpawnOptions): Promise<ChildResult> {
    const record = this.ports.runtime.store.record()!;
    const subagentId = this.ports.newId();
    const controller = new AbortController();
    const onParentAbort = () => controller.abort();
    options.signal.addEventListener("abort", onParentAbort, { once: true });
    if (options.signal.aborted) controller.abort();
    const ids = { parentSessionId: record.sessionId, subagentId, parentToolCallId: options.parentToolCallId };
    const entry: ActiveChild = { ids, controller, taskIndex: options.taskIndex, client: options.client, emit: options.emit, onEvent: options.onEvent };
    this.#active.set(subagentId, entry);
    let result: ChildResult;
    try {
      options.onEvent({ type: "queued", subagentId });
      result = await this.pool.run(() => this.#run(entry, task), controller.signal);
    } catch (err) {
      if (!(err instanceof PoolAbortedError)) throw err;
      result = resultWithoutRun(options.taskIndex, subagentId, record.model, "interrupted", "Interrupted before it started.");
    } finally {
      options.signal.removeEventListener("abort", onParentAbort);
      this.#active.delete(subagentId);
    }
    options.onEvent({ type: "finished", subagentId, result });
    return result;
  }

  /** A child's editor request, sent over the parent's connection in the parent's name. */
  async forward(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    const entry = this.#active.get(subagentId);
    if (!entry) return { ok: false, error: { kind: "tool", message: "The task this sub-agent works for has ended." } };
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

  /** A child's tool calls, logged and sent as the parent's, in the order the child made them. */
  relay(subagentId: string, frames: string[]): boolean {
    const entry = this.#active.get(subagentId);
    if (!entry) return false;
    for (const frame of frames) {
      const update = JSON.parse(frame) as SessionUpdate;
      if (!isRelayed(update)) continue;
      entry.emit(decorateChildUpdate(update, entry.ids));
      if (update.sessionUpdate === "tool_call") entry.onEvent({ type: "tool", subagentId, title: update.title });
    }
    return true;
  }

  /** Stops one child (running or waiting); false if no such child runs for this session. */
  interrupt(subagentId: string): boolean {
    const entry = this.#active.get(subagentId);
    entry?.controller.abort();
    return entry !== undefined;
  }

  /** Holds or releases new spawns; remembered with the session. */
  setPaused(paused: boolean): SubagentsState {
    if (paused) this.pool.pause();
    else this.pool.resume();
    const record = this.ports.runtime.store.record();
    if (record) this.ports.runtime.store.updateRecord({ delegation: { ...record.delegation, spawnPaused: paused } });
    return this.state();
  }

  state(): SubagentsState {
    return { paused: this.pool.paused, running: this.pool.running, waiting: this.pool.waiting, subagentIds: [...this.#active.keys()] };
  }

  async #run(entry: ActiveChild, task: DelegatedTask): Promise<ChildResult> {
    const { subagentId } = entry.ids;
    entry.onEvent({ type: "started", subagentId });
    const spec = this.#spec(entry, task);
    const child = this.ports.child(subagentId);
    const interrupt = () => void child.interruptChild("interrupted").catch(() => undefined);
    try {
      // Calls on one stub arrive in order, so the interrupt can never overtake the run.
      const running = child.runChild(spec);
      if (entry.controller.signal.aborted) interrupt();
      else entry.controller.signal.addEventListener("abort", interrupt, { once: true });
      return await running;
    } catch (err) {
      console.error("sub-agent RPC failed", err);
      await this.ports.index.update(subagentId, { endReason: "failed", updatedAt: this.ports.now() }).catch(() => undefined);
      const reason = err instanceof Error ? err.message : String(err);
      return resultWithoutRun(entry.taskIndex, subagentId, spec.model, "failed", `The sub-agent's session could not be reached: ${reason}`);
    } finally {
      entry.controller.signal.removeEventListener("abort", interrupt);
    }
  }

  /** Read when the child starts, not when it was queued: it follows the parent's mode and model as they are now. */
  #spec(entry: ActiveChild, task: DelegatedTask): ChildSpec {
    const record = this.ports.runtime.store.record()!;
    return {
      tenant: record.tenant,
      parentSessionId: record.sessionId,
      parentToolCallId: entry.ids.parentToolCallId,
      subagentId: entry.ids.subagentId,
      taskIndex: entry.taskIndex,
      goal: task.goal,
      ...(task.context !== undefined ? { context: task.context } : {}),
      role: task.role,
      depth: (record.delegation?.depth ?? 0) + 1,
      maxModelCalls: CHILD_MAX_MODEL_CALLS,
      ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
      model: record.model,
      mode: record.mode,
      reasoningEffort: record.reasoningEffort,
      cwd: record.cwd,
      additionalDirectories: record.additionalDirectories,
      rootId: record.rootId,
      parentLineage: record.lineage,
      clientCapabilities: entry.client.capabilities,
      label: `sub-agent ${entry.taskIndex + 1}: ${shortLine(task.goal, 48)}`,
      approval: this.ports.settings.subagentApproval,
    };
  }
}
