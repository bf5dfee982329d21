/**
 * The shapes delegation passes around: what `delegate_task` asks of its
 * session (`DelegatePort`), what the parent session object sends a child
 * object (`ChildSpec`), and a child's editor requests forwarded to the parent.
 * Everything crossing Durable Object RPC here is plain, serializable data.
 */
import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import type { ErrorResponse } from "@hermes-edge/protocol";
import type { SegmentLineage } from "../session/session-record.js";
import type { ClientPort } from "../tools/tool.js";
import type { ChildRole } from "./blocked-tools.js";
import type { ChildResult } from "./child-result.js";

/** Model calls one sub-agent may make for its task. */
export const CHILD_MAX_MODEL_CALLS = 50;

export interface DelegatedTask {
  goal: string;
  context?: string | undefined;
  role: ChildRole;
  /** Per-child limit from the task's start; the result then says `timeout`. */
  timeoutMs?: number | undefined;
}

/** What happened to one task, for the parent's live progress view. */
export type ChildEvent =
  | { type: "queued"; subagentId: string }
  | { type: "started"; subagentId: string }
  | { type: "tool"; subagentId: string; title: string }
  | { type: "finished"; subagentId: string; result: ChildResult };

export interface SpawnOptions {
  taskIndex: number;
  /** The `delegate_task` call the child's work belongs to. */
  parentToolCallId: string;
  /** How the parent's turn reaches the editor; the child's requests go the same way. */
  client: ClientPort;
  /** Where the parent's turn sends updates; the child's tool calls are relayed into it. */
  emit(update: SessionUpdate): void;
  /** The parent turn's signal: aborting it interrupts the child. */
  signal: AbortSignal;
  onEvent(event: ChildEvent): void;
}

/** Set on a tool's context when its session may delegate. */
export interface DelegatePort {
  spawn(task: DelegatedTask, options: SpawnOptions): Promise<ChildResult>;
}

/** Sent from the parent session object to a child's `runChild`. */
export interface ChildSpec {
  tenant: string;
  parentSessionId: string;
  parentToolCallId: string;
  subagentId: string;
  taskIndex: number;
  goal: string;
  context?: string | undefined;
  role: ChildRole;
  /** The child's depth: its parent's plus one. */
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
  /** What the editor behind the parent can do (decides the child's tools). */
  clientCapabilities: ClientCapabilities;
  /** Shown on the child's permission requests. */
  label: string;
  approval: "ask" | "deny";
}

/** A child's request to the editor, as it crosses to the parent. */
export interface ForwardedRequest {
  method: string;
  params: unknown;
  timeoutMs?: number | undefined;
  /** The child's call had an abort signal; the parent then ties it to the child's lifetime. */
  cancellable: boolean;
}

export type ForwardOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: { kind: "editor"; body: ErrorResponse } | { kind: "tool" | "other"; message: string } };
