/**
 * The shapes delegation passes around: what `delegate_task` asks of its
 * session (`SubagentSpawner`), what the parent session object sends a
 * sub-agent's object (`SubagentSpec`), a sub-agent's editor requests forwarded
 * to the parent, and the control commands. Everything crossing Durable Object
 * RPC here is plain, serializable data.
 */
import { type DeclaredUpstream, type ErrorResponse } from "@hermes-edge/protocol";
import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import type { McpToolDescriptor } from "../mcp/subagent-mcp.js";
import type { SegmentLineage } from "../session/session-record.js";
import type { ClientPort } from "../tools/tool.js";
import type { SubagentRole } from "./blocked-tools.js";
import type { SubagentResult } from "./subagent-result.js";

/** Model calls one sub-agent may make for its task. */
export const SUBAGENT_MAX_MODEL_CALLS = 50;

export interface DelegatedTask {
  goal: string;
  context?: string | undefined;
  role: SubagentRole;
  /** Per-sub-agent limit from the task's start; the result then says `timeout`. */
  timeoutMs?: number | undefined;
  /** The sub-agent's model (e.g. an upstream agent's `acp:<id>`); default: the parent's. */
  model?: string | undefined;
}

/** What happened to one task, for the parent's live progress view. */
export type SubagentEvent =
  /** `paused`: held by `_hermes/subagents/pause`, not by the lack of a slot; `tenantLimit`: held by the tenant's `maxConcurrentSubagents` (this many run across its sessions), not by the session's own cap. */
  | { type: "queued"; subagentId: string; paused?: boolean; tenantLimit?: number }
  | { type: "started"; subagentId: string }
  | { type: "tool"; subagentId: string; title: string }
  | { type: "finished"; subagentId: string; result: SubagentResult };

export interface SpawnOptions {
  taskIndex: number;
  /** The `delegate_task` call the sub-agent's work belongs to. */
  parentToolCallId: string;
  /** How the parent's turn reaches the editor; the sub-agent's requests go the same way. */
  client: ClientPort;
  /** Where the parent's turn sends updates; the sub-agent's tool calls are relayed into it. */
  emit(update: SessionUpdate): void;
  /** The parent turn's signal: aborting it interrupts the sub-agent. */
  signal: AbortSignal;
  onEvent(event: SubagentEvent): void;
}

/** Why a sub-agent's task was stopped before it finished. */
export type SubagentStopCause = "interrupted" | "timeout";

export type SubagentCommand = { action: "interrupt"; subagentId: string } | { action: "pause" } | { action: "resume" };

/** The pool's state (after a command; for an interrupt, which sub-agent was stopped). */
export interface SubagentControlResult {
  paused: boolean;
  running: number;
  waiting: number;
  subagentIds: string[];
  interrupted?: string;
}

/** Set on a tool's context when its session may delegate. */
export interface SubagentSpawner {
  spawn(task: DelegatedTask, options: SpawnOptions): Promise<SubagentResult>;
}

/** Sent from the parent session object to a sub-agent's `runSubagentTask`. */
export interface SubagentSpec {
  tenant: string;
  /** The parent's owner and access root: a sub-agent belongs to its parent's user and follows its shares. */
  owner?: string | null;
  accessRoot?: string;
  parentSessionId: string;
  parentToolCallId: string;
  subagentId: string;
  taskIndex: number;
  goal: string;
  context?: string | undefined;
  role: SubagentRole;
  /** The sub-agent's depth: its parent's plus one. */
  depth: number;
  maxModelCalls: number;
  timeoutMs?: number | undefined;
  model: string;
  mode: string;
  reasoningEffort: "low" | "medium" | "high";
  cwd: string;
  additionalDirectories: string[];
  rootId: string;
  parentLineage: SegmentLineage;
  /** What the editor behind the parent can do (decides the sub-agent's tools). */
  clientCapabilities: ClientCapabilities;
  /** Shown on the sub-agent's permission requests. */
  label: string;
  approval: "ask" | "deny";
  /** The parent's MCP tools when the sub-agent starts; their calls go through the parent. */
  mcpTools?: McpToolDescriptor[];
  /** The proxy-hosted upstreams the parent reaches; the sub-agent's tunnels to them go through the parent. */
  upstreams?: DeclaredUpstream[];
}

/** A sub-agent's request to the editor, as it crosses to the parent. */
export interface ForwardedRequest {
  method: string;
  params: unknown;
  timeoutMs?: number | undefined;
  /** The sub-agent's call had an abort signal; the parent then ties it to the sub-agent's lifetime. */
  cancellable: boolean;
}

export type ForwardOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: { kind: "editor"; body: ErrorResponse } | { kind: "tool" | "other"; message: string } };
