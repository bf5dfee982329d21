/**
 * MCP over ACP (unstable): the `mcpServers` entries of a session's setup and
 * the `mcp/message` envelope. The service speaks to `acp` servers with it;
 * the proxy answers for the editor's `stdio` servers, which it runs. Shapes
 * follow `schema.unstable.json` (`McpServer*`, `MessageMcp*`) and are checked
 * against the SDK's generated types.
 * @module
 */
import type {
  McpServer,
  MessageMcpNotification,
  MessageMcpRequest,
  MessageMcpResponse,
} from "@agentclientprotocol/sdk/unstable";
import * as z from "zod";
import { loose } from "./loose.js";

export const MCP_MESSAGE = "mcp/message";

/**
 * The most MCP servers one session setup (`session/new`, `load`, `resume`,
 * `fork`) may declare: each is a connection (or, through the proxy, a process)
 * and a tool list. The service refuses more with -32602; the proxy starts none of them then.
 */
export const MAX_MCP_SERVERS = 32;

/**
 * How long an MCP tool call may run (a build, a query): it fails after
 * `idleMs` without an answer or a `notifications/progress`, and after
 * `totalMs` in all, progress or not. The service and the proxy apply the same.
 */
export const MCP_CALL_TIMEOUT_MS = 5 * 60_000;
export function mcpCallTimeouts(idleMs: number = MCP_CALL_TIMEOUT_MS): { idleMs: number; totalMs: number } {
  return { idleMs, totalMs: idleMs * 12 };
}

/** Why `mcpCallTimeouts` stopped a call of `method`: no answer or progress for `idleMs`, or `totalMs` in all. */
export function mcpTimeoutReason(method: string, timeouts: { idleMs: number; totalMs: number }, struck: "idle" | "total"): string {
  return struck === "idle"
    ? `no answer or progress to ${method} within ${seconds(timeouts.idleMs)}`
    : `${method} was still running after ${seconds(timeouts.totalMs)}, the most one call may take`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${(ms / 1000).toLocaleString("en-US")} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Outer ACP error codes of the binding (never inner MCP codes). */
export const McpBindingError = {
  /** No server with that id is declared on this connection. */
  serverUnavailable: -33001,
  /** The server (or its process) failed without a valid MCP outcome. */
  backendFailed: -33002,
} as const;

/** The MCP revision the binding carries, and the `_meta` keys it puts in each inner request. */
export const MCP_BINDING_PROTOCOL_VERSION = "2026-07-28";
export const MCP_META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
} as const;

const zMeta = z.record(z.string(), z.unknown()).nullish();
const zNameValue = loose({ name: z.string(), value: z.string() });
const zName = z.string().min(1, "an MCP server needs a non-empty name");
/** ACP: `headers`, `args` and `env` may be null; they read as empty. */
const listOf = <T extends z.ZodType>(item: T) => z.array(item).nullish().transform((v): z.output<T>[] => v ?? []);

export const zMcpServerHttp = loose({ type: z.literal("http"), name: zName, url: z.string(), headers: listOf(zNameValue), _meta: zMeta });
export const zMcpServerSse = loose({ type: z.literal("sse"), name: zName, url: z.string(), headers: listOf(zNameValue), _meta: zMeta });
export const zMcpServerAcp = loose({ type: z.literal("acp"), name: zName, serverId: z.string().min(1), _meta: zMeta });
/** ACP's stdio entries have no `type` (some clients write `"stdio"`); parsing adds `"stdio"`. */
export const zMcpServerStdio = loose({
  type: z.literal("stdio"),
  name: zName,
  command: z.string().min(1),
  args: listOf(z.string()),
  env: listOf(zNameValue),
  _meta: zMeta,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One `mcpServers` entry; an entry without `type` is a stdio one. Issues point into the entry. */
export const zMcpServerEntry = z.preprocess(
  (v) => (isObject(v) && v.type === undefined ? { ...v, type: "stdio" } : v),
  z.discriminatedUnion("type", [zMcpServerHttp, zMcpServerSse, zMcpServerAcp, zMcpServerStdio], {
    error: (issue) =>
      isObject(issue.input) ? `unknown MCP server type ${JSON.stringify(issue.input.type)}; expected http, sse, acp or stdio` : "an MCP server entry must be an object",
  }),
);
export type McpServerEntry = z.infer<typeof zMcpServerEntry>;
export type McpServerStdioEntry = z.infer<typeof zMcpServerStdio>;
export type McpServerAcpEntry = z.infer<typeof zMcpServerAcp>;

export function isStdioEntry(entry: McpServerEntry): entry is McpServerStdioEntry {
  return entry.type === "stdio";
}

/** `mcp/message` request params (agent → client) and notification params (client → agent) share one shape. */
export const zMcpMessageParams = loose({
  serverId: z.string().min(1),
  requestId: z.string().min(1),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).nullish(),
  _meta: zMeta,
});
export type McpMessageParams = z.infer<typeof zMcpMessageParams>;

export const zMcpError = loose({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
export type McpErrorBody = z.infer<typeof zMcpError>;

/** The successful outer response: exactly one inner outcome; `result` wins when both are present. */
export const zMcpOutcome = z.union([loose({ result: z.unknown() }).refine((v) => "result" in v, "result is required"), loose({ error: zMcpError })]);
export type McpOutcome = { result: unknown } | { error: McpErrorBody };

export function parseMcpOutcome(value: unknown): McpOutcome | undefined {
  const parsed = zMcpOutcome.safeParse(value);
  if (!parsed.success) return undefined;
  return "result" in parsed.data ? { result: parsed.data.result } : { error: parsed.data.error };
}

// The SDK's generated types are the reference; these fail to compile if the shapes drift apart.
type Assignable<T, U extends T> = U;
export type _CheckRequest = Assignable<MessageMcpRequest, McpMessageParams & { params?: Record<string, unknown> | null }>;
export type _CheckNotification = Assignable<MessageMcpNotification, McpMessageParams & { params?: Record<string, unknown> | null }>;
export type _CheckResponse = Assignable<MessageMcpResponse, { result: unknown } | { error: McpErrorBody }>;
export type _CheckEntry = Assignable<McpServer, McpServerEntry>;
