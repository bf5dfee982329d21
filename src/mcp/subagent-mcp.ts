/**
 * A sub-agent's MCP tools: the parent's, at the time it starts. The sub-agent
 * has no connection of its own, so each call crosses to the parent session
 * object (`_hermes/mcp/call` on the forwarding client port), which calls its
 * server: over the parent's connection for `acp` servers. The sub-agent's own
 * gate asks (labelled, through the parent) before tools that are not read-only.
 */
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AnyTool, ClientPort } from "../tools/tool.js";
import type { McpToolInfo } from "./mcp-link.js";
import { mcpTool } from "./mcp-tool.js";

/** The forwarded method a sub-agent's MCP call takes to its parent; never sent to an editor. */
export const SUBAGENT_MCP_CALL = "_hermes/mcp/call";

/** One of the parent's MCP tools, as data that crosses RPC. */
export interface McpToolDescriptor {
  name: string;
  server: string;
  info: McpToolInfo;
}

export const zSubagentMcpCall = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) });

/** What the parent offers its sub-agents: its MCP tools, and a call by tool name (gated already by the sub-agent). */
export interface SubagentMcp {
  descriptors(): McpToolDescriptor[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export function forwardedMcpTools(descriptors: McpToolDescriptor[], client: ClientPort): AnyTool[] {
  return descriptors.map((d) =>
    mcpTool(
      {
        name: d.server,
        call: async (_tool, args, signal) => CallToolResultSchema.parse(await client.request(SUBAGENT_MCP_CALL, { name: d.name, arguments: args }, { signal })) as CallToolResult,
      },
      d.info,
      d.name,
    ),
  );
}
