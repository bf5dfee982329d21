/**
 * The session object's RPC surface: what connection objects, parent sessions
 * and REST routes may call. They type their stubs with this interface, never
 * with the class, so the contract is read here in one place. Every method
 * that answers a client returns an `RpcOutcome`: errors cross RPC as bodies.
 */
import type { ErrorResponse, McpMessageParams, McpServerEntry, RequestId, ShareRole, UpstreamMessage } from "@hermes-edge/protocol";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ChatMessage } from "../agent/model-provider.js";
import type { SubagentResult } from "../delegate/subagent-result.js";
import type {
  ForwardedRequest,
  ForwardOutcome,
  SubagentCommand,
  SubagentControlResult,
  SubagentSpec,
  SubagentStopCause,
} from "../delegate/subagent-spec.js";
import type { RpcOutcome } from "../durable/rpc-outcome.js";
import type { ConnectionRef } from "./connection-ref.js";
import type { CreateSessionInit } from "./create-session.js";
import type { ForkSnapshot } from "./fork.js";

export interface OpenOptions {
  /** `session/load`: replay the whole log. `session/resume`: replay only after `afterSeq`, if given. */
  replay: boolean;
  afterSeq: number | undefined;
  cwd: string;
  additionalDirectories?: string[];
  /** The attaching editor's MCP servers; omitted means none. */
  mcpServers?: McpServerEntry[];
}

export interface SessionHistory {
  sessionId: string;
  currentSegment: number;
  messages: { segment: number; message: ChatMessage }[];
}

/** Logged frames after a seq, for a resumed SSE stream (`logAfter`). */
export interface LogPage {
  /** The frames this connection gets, in seq order (a `_hermes/turn_ended` it did not ask for is left out). */
  entries: { seq: number; frame: string }[];
  /** The last seq this page read: the next page starts after it. */
  cursor: number;
  /** More may follow `cursor` (within the bound asked for). */
  more: boolean;
}

export interface SessionRpc extends Rpc.DurableObjectBranded {
  // --- a connection's ACP methods; responses to new/load/resume/fork/prompt go out through the session's outbox
  create(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit): Promise<RpcOutcome<null>>;
  /** The source side of `session/fork`: everything up to the last completed turn. */
  forkSnapshot(conn: ConnectionRef): Promise<RpcOutcome<ForkSnapshot>>;
  /** The new side of `session/fork`: a session made from the snapshot, answered like `session/new`. */
  createFork(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit, snapshot: ForkSnapshot): Promise<RpcOutcome<null>>;
  open(conn: ConnectionRef, requestId: RequestId, options: OpenOptions): Promise<RpcOutcome<null>>;
  prompt(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): Promise<RpcOutcome<null>>;
  /** `session/set_mode`, `session/set_config_option` and the legacy `session/set_model`. */
  setConfig(conn: ConnectionRef, configId: string, value: unknown): Promise<RpcOutcome>;
  cancel(conn: ConnectionRef): Promise<RpcOutcome<null>>;
  cancelRequest(conn: ConnectionRef, requestId: RequestId): Promise<void>;
  close(conn: ConnectionRef): Promise<RpcOutcome>;
  /** `session/delete`; an unknown session succeeds too (ACP: delete SHOULD succeed silently). */
  destroy(conn: ConnectionRef): Promise<RpcOutcome>;
  /** `session/set_title` (unstable): stores the title and stops automatic titling. */
  setTitle(tenant: string, title: string): Promise<RpcOutcome<{ title: string }>>;
  /** An editor's answer to a request this session sent; false if it is not pending here. */
  clientResponse(connectionId: string, response: { id: string | number; result?: unknown; error?: ErrorResponse }): Promise<boolean>;
  detach(connectionId: string): Promise<void>;
  /** A page of the update log after `afterSeq` (up to `untilSeq`) for an attached connection's resumed SSE stream; null if not attached. */
  logAfter(connectionId: string, afterSeq: number, untilSeq: number): Promise<RpcOutcome<LogPage | null>>;

  /** Shares changed (`_hermes/session/share|unshare`): `user`'s connections take their new role or are let go; answers those changed. */
  reshare(tenant: string, user: string, shares: { user: string; role: ShareRole }[]): Promise<string[]>;
  /** `_hermes/upstream/message` from a proxy: one of its upstream agents' messages, for this session's tunnels. */
  upstreamMessage(connectionId: string, params: UpstreamMessage): Promise<void>;
  /** A client's `mcp/message` notification for one of the `acp` MCP servers it declared here; ignored if unknown. */
  mcpNotification(connectionId: string, params: McpMessageParams): Promise<void>;

  // --- REST
  readHistory(tenant: string): Promise<RpcOutcome<SessionHistory>>;
  /** `_hermes/subagents/interrupt|pause|resume` and their REST twins. */
  subagents(tenant: string, command: SubagentCommand): Promise<RpcOutcome<SubagentControlResult>>;

  // --- sub-agents: the parent calls these on the sub-agent's object
  runSubagentTask(spec: SubagentSpec): Promise<SubagentResult>;
  interruptSubagentTask(cause: SubagentStopCause): Promise<void>;

  // --- sub-agents: a sub-agent calls these on its parent's object
  /** A sub-agent's editor request, sent over the parent's connection. */
  forwardEditorRequest(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome>;
  /** A message of a sub-agent's tunnel to a proxy-hosted upstream, sent over the parent's connection; false when the parent cannot reach it. */
  forwardUpstreamMessage(subagentId: string, params: UpstreamMessage): Promise<boolean>;
  /** A sub-agent's tool calls for the parent's log; false when the parent no longer runs that sub-agent. */
  relaySubagentUpdates(subagentId: string, frames: string[]): Promise<boolean>;
}
