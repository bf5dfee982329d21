/**
 * The shape every tool module exports. The turn loop validates the model's
 * arguments with `inputSchema`, renders the call with `title`/`locations`, and
 * reports `run`'s outcome as a `tool_call_update`.
 */
import type * as z from "zod";
import type {
  ClientCapabilities,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { SubagentSpawner } from "../delegate/subagent-spec.js";

/** Requests to the editor (fs, terminal, permission) through an attached connection. */
export interface ClientPort {
  readonly capabilities: ClientCapabilities;
  request(method: string, params: unknown, options?: ClientRequestOptions): Promise<unknown>;
}

export interface ClientRequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Ask under this id: the one sent before a restart for the same question (`step-client.ts`). */
  id?: string;
  /** The id the request goes out under, told before it is sent. */
  opened?(id: string): void;
}

export interface ToolContext {
  sessionId: string;
  /** The session's tenant: project memory and session search are scoped to it. */
  tenant: string;
  /** The session's owner (null: an admin key's session): session search finds only what they may read. */
  owner?: string | null;
  /** D1: project memory and the session search index. */
  db: D1Database;
  cwd: string;
  additionalDirectories: string[];
  toolCallId: string;
  signal: AbortSignal;
  client: ClientPort;
  /** Sends a session update (e.g. a `tool_call_update` with progress, or a `plan`). */
  emit(update: SessionUpdate): void;
  /**
   * The permission gate every edit and command passes before it touches the
   * editor's machine; throws `ToolError` when the user (or the mode) denies it.
   * Absent means no gate is installed (e.g. in tests of the tool alone).
   */
  gate?(request: GateRequest): Promise<void>;
  /** Spawns sub-agents (other session objects); present only when this session may delegate. */
  subagents?: SubagentSpawner;
}

/** What a tool asks permission for: the diff it will write or the command it will run. */
export interface GateRequest {
  kind: "edit" | "execute" | "mcp";
  /** Absolute, policy-checked paths the action touches (for `execute`, its working directory). */
  paths: string[];
  title: string;
  content: ToolCallContent[];
  /** For `execute`: the command line, so "allow" can be remembered per program. */
  command?: string;
  /** For `mcp`: the rule "allow" is remembered as (the tool's `mcp__server__tool` name) and the kind shown. */
  rule?: string;
  toolKind?: ToolKind;
}

export interface ToolOutcome {
  /** What the model reads as the tool's result. */
  output: string;
  /** What the editor shows; defaults to `output` as text. */
  content?: ToolCallContent[];
  rawOutput?: unknown;
  locations?: ToolCallLocation[];
}

export interface Tool<Input = unknown> {
  name: string;
  description: string;
  kind: ToolKind;
  inputSchema: z.ZodType<Input>;
  /** The JSON Schema offered to the model, when it is not derived from `inputSchema` (MCP tools bring their own). */
  parameters?: Record<string, unknown>;
  title(input: Input): string;
  locations?(input: Input, ctx: { cwd: string }): ToolCallLocation[];
  /** False when the client lacks a capability the tool needs; it is then not offered. */
  available?(client: ClientCapabilities): boolean;
  /**
   * True when running a call again after a restart re-attaches to the work
   * the cut run started instead of repeating it (see `decideCall`).
   */
  resumable?: boolean;
  run(input: Input, ctx: ToolContext): Promise<ToolOutcome>;
}

/** A tool failure the model and the editor should see, with its reason. */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolError";
  }
}

// Tools are heterogeneous in their input type; the registry erases it and the
// turn loop restores safety by parsing with each tool's own schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;
