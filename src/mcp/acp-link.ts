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
import { ProgressDeadline } from "./progress-deadline.js";
import { listAllTools } from "./tool-list.js";

/** Sends one `mcp/message` request on the declaring connection and resolves with the editor's (outer) result. */
export type SendMcpMessage = (params: McpMessageParams, options: { signal?: AbortSignal; timeoutMs: number }) => Promise<unknown>;

/**
 * `nextRequestId` gives the inner request ids: they must be unique on the
 * connection, which every acp link of the session shares (and a link made
 * again after a drop too), so the session's servers draw from one source.
 */
export function acpLink(entry: McpServerAcpEntry, send: SendMcpMessage, nextRequestId: () => string): McpLink {
  /** Tool calls under way, by inner request id: their progress pushes their deadline back. */
  const calls = new Map<string, ProgressDeadline>();
  const request = async (method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }, deadline?: ProgressDeadline): Promise<unknown> => {
    const requestId = nextRequestId();
    const meta = {
      [MCP_META.protocolVersion]: MCP_BINDING_PROTOCOL_VERSION,
      [MCP_META.clientCapabilities]: {},
      [MCP_META.clientInfo]: MCP_CLIENT_INFO,
      // The token is the request id: `progressed` is told which request a progress notification is for.
      ...(deadline ? { progressToken: requestId } : {}),
    };
    if (deadline) calls.set(requestId, deadline);
    let answer: unknown;
    try {
      answer = await send({ serverId: entry.serverId, requestId, method, params: { ...params, _meta: meta } }, options);
    } catch (err) {
      // The deadline withdrew the request (the editor gets `$/cancel_request`): say why, not "cancelled".
      if (deadline?.signal.aborted) throw deadline.signal.reason;
      throw err;
    } finally {
      calls.delete(requestId);
    }
    const outcome = parseMcpOutcome(answer);
    if (!outcome) throw new Error(`the client's answer to mcp/message ${method} carries neither a result nor an error`);
    if ("error" in outcome) throw new McpServerError(outcome.error.code, outcome.error.message);
    return outcome.result;
  };
  return {
    listTools: (options) => listAllTools((cursor) => request("tools/list", cursor ? { cursor } : {}, options)),
    async callTool(name, args, { signal, idleMs, totalMs }) {
      const deadline = new ProgressDeadline("tools/call", { idleMs, totalMs });
      try {
        // The editor's own timer is the total; the deadline's signal ends the wait earlier.
        const answer = await request("tools/call", { name, arguments: args }, { signal: AbortSignal.any([signal, deadline.signal]), timeoutMs: totalMs }, deadline);
        return CallToolResultSchema.parse(answer) as CallToolResult;
      } finally {
        deadline.clear();
      }
    },
    progressed: (requestId) => calls.get(requestId)?.progressed(),
    // The declaring component owns the server's lifetime.
    close: async () => undefined,
  };
}
