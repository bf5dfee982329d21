/**
 * Delegation as one session object takes part in it: as a parent (the
 * `SubagentHost`) and as a child (the `ChildRunner`). The session object's RPC
 * entry points call these methods and nothing else.
 */
import { ErrorCode, invalidRequest, RequestError } from "@hermes-edge/protocol";
import type { DelegationSettings, ModelSettings } from "../config.js";
import type { SegmentIndex } from "../db/segment-index.js";
import type { SessionIndex } from "../db/session-index.js";
import type { SessionObject } from "../durable/session-object.js";
import type { TurnPorts } from "../session/model-turn.js";
import type { SessionRuntime } from "../session/session-runtime.js";
import { ChildRunner } from "./child-run.js";
import type { ChildResult } from "./child-result.js";
import type { ChildSpec, DelegatePort, ForwardedRequest, ForwardOutcome } from "./delegate-port.js";
import { SubagentHost, type SubagentsState } from "./subagent-host.js";

export interface DelegationPorts {
  runtime: SessionRuntime;
  index: SessionIndex;
  segments: SegmentIndex;
  settings: ModelSettings;
  delegation: DelegationSettings;
  turn: TurnPorts;
  sessions: DurableObjectNamespace<SessionObject>;
  keepAlive(running: boolean): void;
  newId(): string;
  now(): number;
}

export type SubagentCommand = { action: "interrupt"; subagentId: string } | { action: "pause" } | { action: "resume" };
/** The pool's state after a command (and, for an interrupt, which sub-agent was stopped). */
export type SubagentControlResult = SubagentsState & { interrupted?: string };

export class Delegation {
  readonly host: SubagentHost;
  readonly child: ChildRunner;

  constructor(ports: DelegationPorts) {
    const stub = (sessionId: string) => ports.sessions.get(ports.sessions.idFromName(sessionId));
    this.host = new SubagentHost({
      runtime: ports.runtime,
      index: ports.index,
      settings: ports.delegation,
      newId: ports.newId,
      now: ports.now,
      child: (subagentId) => {
        const s = stub(subagentId); // one stub per child keeps its run and interrupt in order
        return {
          runChild: async (spec) => (await s.runChild(spec)) as ChildResult,
          interruptChild: async (cause) => void (await s.interruptChild(cause)),
        };
      },
    });
    this.child = new ChildRunner({
      runtime: ports.runtime,
      index: ports.index,
      segments: ports.segments,
      settings: ports.settings,
      turn: ports.turn,
      maxSpawnDepth: ports.delegation.maxSpawnDepth,
      keepAlive: ports.keepAlive,
      now: ports.now,
      parent: (sessionId) => {
        const s = stub(sessionId);
        return {
          forwardClientRequest: async (subagentId, request) => (await s.forwardClientRequest(subagentId, request)) as ForwardOutcome,
          relayChildUpdates: (subagentId, frames) => s.relayChildUpdates(subagentId, frames),
        };
      },
    });
  }

  canDelegate(): boolean {
    return this.host.canDelegate();
  }

  /** The port `delegate_task` uses, when this session may delegate. */
  port(): DelegatePort | undefined {
    return this.canDelegate() ? this.host : undefined;
  }

  runChild(spec: ChildSpec): Promise<ChildResult> {
    return this.child.run(spec);
  }

  forward(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    return this.host.forward(subagentId, request);
  }

  relay(subagentId: string, frames: string[]): boolean {
    return this.host.relay(subagentId, frames);
  }

  /** `_hermes/subagents/*` and their REST twins; the caller has checked the tenant. */
  control(command: SubagentCommand): SubagentControlResult {
    switch (command.action) {
      case "interrupt":
        if (!this.host.interrupt(command.subagentId)) {
          throw new RequestError(ErrorCode.resourceNotFound, "Resource not found", { detail: "no running sub-agent with that id in this session" });
        }
        return { ...this.host.state(), interrupted: command.subagentId };
      case "pause":
        return this.host.setPaused(true);
      case "resume":
        return this.host.setPaused(false);
    }
  }

  /** A sub-agent busy with its delegated task takes no prompts (they would interleave its history). */
  assertTakesPrompts(): void {
    if (this.child.running) {
      throw invalidRequest("this sub-agent is working on its delegated task; prompt it once the task has finished");
    }
  }
}
