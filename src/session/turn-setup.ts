/**
 * What a session sets each of its turns up with, built once per session
 * object: the prompt runner works its queue with it and makes every turn's
 * `TurnContext` from it.
 */
import type { ModelProvider, ModelUsage } from "../agent/model-provider.js";
import type { RetryPolicy } from "../agent/retry.js";
import type { ModelSettings } from "../config.js";
import type { MemoryStore } from "../db/memory-store.js";
import type { PermissionRuleStore } from "../db/permission-rules.js";
import type { SegmentIndex } from "../db/segment-index.js";
import type { SubagentSpawner } from "../delegate/subagent-spec.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { SessionSlots } from "../tenant/session-slots.js";
import type { AnyTool, ClientPort } from "../tools/tool.js";
import type { IndexWriter } from "./index-writer.js";
import type { SettingsController } from "./session-settings.js";
import type { UpstreamPorts } from "./turn-provider.js";
import type { TurnSteps } from "./turn-steps.js";
import type { UpdateLog } from "./update-log.js";

export interface TurnSetup {
  log: UpdateLog;
  settings: ModelSettings;
  /** Null when no API key is configured. */
  provider: ModelProvider | null;
  /** The tools the client's capabilities (and the session's right to delegate) allow, before the mode's filter. */
  tools(client: ClientPort): AnyTool[];
  permissionRules: PermissionRuleStore;
  segments: SegmentIndex;
  /** D1 for tools (project memory, session search). */
  db: D1Database;
  /** The project memory the system prompt's snapshot is read from (one per session object). */
  memory: MemoryStore;
  permissionTimeoutMs: number;
  coalesceMs: number;
  newId(): string;
  /** Counts a model call and its tokens towards the tenant's usage as soon as it ends, so a turn cut short still counts it. */
  countModelCall(usage: ModelUsage | undefined): void;
  /** Counts a tool call towards the tenant's usage as it starts, for the same reason. */
  countToolCall(): void;
  retry?: RetryPolicy;
  /** Spawns sub-agents; undefined when this session may not delegate. */
  subagents(): SubagentSpawner | undefined;
  /** Upstream ACP agents, the `acp:<id>` models (`turn-provider.ts`). */
  upstreams?: UpstreamPorts;
  /** The attached editors' MCP servers; a turn waits for those still connecting. */
  mcp?: McpServers;
  /** The running turn's step record (what a restarted object resumes from). */
  steps: TurnSteps;
  /** The session's mode and model settings as `/mode` and `/model` change them. */
  config: SettingsController;
  /** The session's index row, held while the model answers and touched as a turn ends. */
  index: IndexWriter;
  /** The tenant's limits and usage. */
  slots: SessionSlots;
  /** Keeps the object awake while a turn runs (an alarm heartbeat). */
  keepAlive(running: boolean): void;
  /** After every turn's bookkeeping, off its path (the search index is fed here). */
  turnEnded(): void;
  /** A new turn (not a resumed one) begins. */
  turnBegan?(): void;
}
