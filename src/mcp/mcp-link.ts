/**
 * What the session needs from one connected MCP server, whatever carries it
 * (`http-link.ts` over Streamable HTTP or SSE, `acp-link.ts` over `mcp/message`).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolAnnotations } from "./tool-kind.js";

export interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations | undefined;
  /** Why the MCP schema refuses this tool (`tool-list.ts`): it is reported and not offered. */
  invalid?: string | undefined;
}

export interface McpLink {
  listTools(options: { signal?: AbortSignal; timeoutMs: number }): Promise<McpToolInfo[]>;
  /** Fails after `idleMs` without an answer or progress from the server, and after `totalMs` in all (`mcpCallTimeouts`). */
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; idleMs: number; totalMs: number }): Promise<CallToolResult>;
  /** A `notifications/progress` for the inner request `requestId` arrived (links that do not route it themselves: `acp`). */
  progressed?(requestId: string): void;
  close(): Promise<void>;
}

/** The server answered with an MCP error: it is up, the request failed. Anything else a link throws means the server is unreachable. */
export class McpServerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "McpServerError";
  }
}

/** How the session identifies itself to MCP servers. */
export const MCP_CLIENT_INFO = { name: "hermes-edge", version: "1" } as const;
