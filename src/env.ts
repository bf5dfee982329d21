/**
 * The Worker's bindings and configuration, as `wrangler.toml`, `.dev.vars` and
 * production secrets provide them. Values are raw strings; `config.ts` parses them.
 */
import type { ConnectionObject } from "./durable/connection-object.js";
import type { SessionObject } from "./durable/session-object.js";

export interface Env {
  CONNECTION: DurableObjectNamespace<ConnectionObject>;
  SESSION: DurableObjectNamespace<SessionObject>;
  DB: D1Database;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  HERMES_MODEL?: string;
  HERMES_MODELS?: string;
  HERMES_EDGE_TOKENS?: string;
  HERMES_MAX_FRAME_BYTES?: string;
  HERMES_CONTEXT_WINDOW?: string;
  /** How long a permission request waits for the user before it counts as denied (default 60000). */
  HERMES_PERMISSION_TIMEOUT_MS?: string;
  /** Milliseconds over which streamed text deltas are merged into one update. */
  HERMES_COALESCE_MS?: string;
}
