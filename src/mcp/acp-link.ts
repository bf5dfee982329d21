/**
 * `acp` MCP servers: spoken to over the ACP connection that declared them,
 * one `mcp/message` request per inner MCP request (the binding carries MCP
 * 2026-07-28, which has no session handshake: each request carries its own
 * protocol version and client info in `_meta`).
 */
import {
  MCP_BINDING_PROTOCOL_VERSION,
  MCP_META,
  parseMcpOutcome,
  type McpMessageParams,
  type McpServerAcpEntry,
} from "@hermes-edge/protocol";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MCP_CLIENT_INFO, McpServerError, type McpLink } from "./mcp-link.js";
import { listAllTools } from "./tool-list.js";

/** Sends one `mcp/message` request on the declaring connection and resolves with the editor's (outer) result. */
export type SendMcpMessage = (params: McpMessageParams, options: { signal?: AbortSignal; timeoutMs: number }) => Promise<unknown>;

/**
 * `nextRequestId` gives the inner request ids: they must be unique on the
 * connection, which every acp link of the session shares (and a link made
 * again after a drop too), so the session's servers draw from one source.
 */
export function acpLink(entry: McpServerAcpEntry, send: SendMcpMessage, nextRequestId: () => string): McpLink {
  const request = async (method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<unknown> => {
    const meta = {
      [MCP_META.protocolVersion]: MCP_BINDING_PROTOCOL_VERSION,
      [MCP_META.clientCapabilities]: {},
      [MCP_META.clientInfo]: MCP_CLIENT_INFO,
    };
    const answer = await send({ serverId: entry.serverId, requestId: nextRequestId(), method, params: { ...params, _meta: meta } }, options);
    const outcome = parseMcpOutcome(answer);
    if (!outcome) throw new Error(`the client's answer to mcp/message ${method} carries neither a result nor an error`);
    if ("error" in outcome) throw new McpServerError(outcome.error.code, outcome.error.message);
    return outcome.result;
  };
  return {
    listTools: (options) => listAllTools((cursor) => request("tools/list", cursor ? { cursor } : {}, options)),
    async callTool(name, args, options) {
      return CallToolResultSchema.parse(await request("tools/call", { name, arguments: args }, options)) as CallToolResult;
    },
    // The declaring component owns the server's lifetime.
    close: async () => undefined,
  };
}
