/**
 * The Worker's bindings and configuration, as `wrangler.toml`, `.dev.vars` and
 * production secrets provide them. Values are raw strings; `config.ts` parses them.
 */
import type { ConnectionRpc } from "./connection/connection-rpc.js";
import type { SessionRpc } from "./session/session-rpc.js";
import type { TenantObject } from "./durable/tenant-object.js";

export interface Env {
  CONNECTION: DurableObjectNamespace<ConnectionRpc>;
  SESSION: DurableObjectNamespace<SessionRpc>;
  TENANT: DurableObjectNamespace<TenantObject>;
  /** Counts failed authentications per client address (`[[ratelimits]]` in wrangler.toml). */
  AUTH_FAILURE_LIMITER?: RateLimit;
  DB: D1Database;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  HERMES_MODEL?: string;
  HERMES_MODELS?: string;
  HERMES_EDGE_TOKENS?: string;
  /** Guards `/v1/admin/*` (`Authorization: Bearer`); unset means the admin API refuses everyone. */
  HERMES_ADMIN_TOKEN?: string;
  /** Default tenant limits, JSON, e.g. `{"maxConcurrentTurns": 4, "maxConcurrentSubagents": 64, "dailyTokens": 2000000}` (wrangler.toml's); unset: no limits. */
  HERMES_TENANT_LIMITS?: string;
  /** Browser origins allowed besides the service's own (comma list, `*` for one port or label); default localhost and 127.0.0.1. */
  HERMES_ALLOWED_ORIGINS?: string;
  HERMES_MAX_FRAME_BYTES?: string;
  HERMES_CONTEXT_WINDOW?: string;
  /** How long a permission request waits for the user before it counts as denied (default 60000). */
  HERMES_PERMISSION_TIMEOUT_MS?: string;
  /** How long an MCP tool call may go without an answer or a progress notification (default 300000; 12 times that in all). */
  HERMES_MCP_CALL_TIMEOUT_MS?: string;
  /** Milliseconds over which streamed text deltas are merged into one update. */
  HERMES_COALESCE_MS?: string;
  /** How many levels of sub-agents may exist below a root session (default 1: children cannot delegate). */
  HERMES_MAX_SPAWN_DEPTH?: string;
  /** How many sub-agents of one session run at once (default 3); the rest wait their turn. */
  HERMES_MAX_CONCURRENT_CHILDREN?: string;
  /** `ask` (default): a sub-agent's permission requests go to the editor, labelled; `deny`: they are refused. */
  HERMES_SUBAGENT_APPROVAL?: string;
  /** Remote upstream ACP agents, JSON `[{ "id", "name"?, "url": "wss://…", "token"? }]`; each is the model `acp:<id>`. */
  HERMES_ACP_UPSTREAMS?: string;
  /** How long an upstream ACP agent may stay silent before its model call fails (default 120000). */
  HERMES_ACP_UPSTREAM_TIMEOUT_MS?: string;
  /** `1`: `http`/`sse` MCP servers may be on loopback or private addresses (local development only). */
  HERMES_ALLOW_PRIVATE_MCP?: string;
}
