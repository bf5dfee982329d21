/**
 * A server's `tools/list`, page by page, read tool by tool: a tool the MCP
 * schema refuses (an `inputSchema` without `type: "object"`, a missing name)
 * comes back marked `invalid` with the reason, so that one bad tool costs the
 * server that tool only, not all the others. An answer that is no list of
 * tools at all fails, saying so.
 */
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { McpToolInfo } from "./mcp-link.js";

/** A server that keeps answering with a next cursor is not followed further than this. */
export const MAX_TOOL_PAGES = 100;

const zPage = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Every page of the server's tools; `page` asks for one (no cursor: the first). */
export async function listAllTools(page: (cursor: string | undefined) => Promise<unknown>): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_TOOL_PAGES; n++) {
    const parsed = zPage.safeParse(await page(cursor));
    if (!parsed.success) throw new Error(`its tools/list answer is not a list of tools (${describeIssue(parsed.error.issues[0])})`);
    tools.push(...parsed.data.tools.map((raw, i) => readTool(raw, tools.length + i)));
    cursor = parsed.data.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

function readTool(raw: unknown, index: number): McpToolInfo {
  const parsed = ToolSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const name = (raw as { name?: unknown } | null)?.name;
  return {
    name: typeof name === "string" && name !== "" ? name.slice(0, 64) : `#${index + 1}`,
    inputSchema: { type: "object" },
    invalid: describeIssue(parsed.error.issues[0]),
  };
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return "invalid";
  return `${issue.path.map(String).join(".") || "the value"}: ${issue.message}`.slice(0, 200);
}
