/**
 * `http` (Streamable HTTP) and `sse` MCP servers, connected from the session
 * object with the MCP SDK's client. The URL must be public http(s), by the
 * same policy as `web_fetch`, unless `HERMES_ALLOW_PRIVATE_MCP=1`; redirects
 * are refused then too, since a public URL could redirect inward.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { McpServerEntry } from "@hermes-edge/protocol";
import { isPrivateHost } from "../tools/url-policy.js";
import { MCP_CLIENT_INFO, McpServerError, type McpLink } from "./mcp-link.js";
import { listAllTools } from "./tool-list.js";

type HttpEntry = Extract<McpServerEntry, { type: "http" | "sse" }>;

/** The URL to connect to; throws an Error whose message is the notice's cause. */
export function checkMcpUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`only http:// and https:// MCP servers are supported, not ${url.protocol}//`);
  if (!allowPrivate && isPrivateHost(url.hostname)) {
    throw new Error(
      `${url.hostname} is a local or private address; the agent runs on a server, so it only connects to public MCP servers ` +
        "(set HERMES_ALLOW_PRIVATE_MCP=1 for local development)",
    );
  }
  return url;
}

export async function connectHttp(
  entry: HttpEntry,
  options: { allowPrivate: boolean; timeoutMs: number; onToolsChanged(): void; onClosed(): void },
): Promise<McpLink> {
  const url = checkMcpUrl(entry.url, options.allowPrivate);
  const headers = Object.fromEntries((entry.headers ?? []).map((h) => [h.name, h.value]));
  const requestInit: RequestInit = { headers, ...(options.allowPrivate ? {} : { redirect: "error" as const }) };
  const transport =
    entry.type === "sse" ? new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string>) } }) } }) : new StreamableHTTPClientTransport(url, { requestInit });
  const client = new Client(MCP_CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
  client.onclose = () => options.onClosed();
  await client.connect(transport, { timeout: options.timeoutMs });
  return {
    // Read tool by tool (`tool-list.ts`), not with the SDK's listTools, which refuses the whole list for one bad tool.
    listTools: ({ signal, timeoutMs }) =>
      listAllTools((cursor) => mapErrors(() => client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ResultSchema, { timeout: timeoutMs, ...(signal ? { signal } : {}) }))),
    async callTool(name, args, { signal, idleMs, totalMs }) {
      // An `onprogress` makes the SDK send a progress token and reset the timeout on progress; without one it does neither.
      const options = { signal, timeout: idleMs, maxTotalTimeout: totalMs, resetTimeoutOnProgress: true, onprogress: () => undefined };
      const result = await mapErrors(() => client.callTool({ name, arguments: args }, undefined, options));
      return result as CallToolResult;
    },
    close: () => client.close(),
  };
}

async function mapErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    // A JSON-RPC error from the server, not one the SDK made up for a closed connection (-32000) or a timeout (-32001).
    if (err instanceof McpError && err.code !== -32000 && err.code !== -32001) throw new McpServerError(err.code, err.message);
    throw err;
  }
}
