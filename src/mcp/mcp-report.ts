/** The text of `/mcp` and of `/tools`' MCP part. */
import { MAX_MCP_TOOLS, type McpServerSummary } from "./mcp-servers.js";

export function mcpReport(servers: McpServerSummary[]): string {
  if (servers.length === 0) return "No MCP servers: the editor declared none for this session.";
  const lines = servers.map((s) => {
    const tools = s.tools.length === 1 ? "1 tool" : `${s.tools.length} tools`;
    return `- **${s.name}** (${s.transport}): ${s.status}, ${tools}${s.cause ? ` — ${s.cause}` : ""}`;
  });
  const total = servers.reduce((n, s) => n + s.tools.length, 0);
  if (total > MAX_MCP_TOOLS) {
    lines.push(`Only the first ${MAX_MCP_TOOLS} of these ${total} tools are offered to the model: its API takes at most 128 tools a request.`);
  }
  return ["MCP servers:", ...lines].join("\n");
}

/** `/tools`: built-in tools first, then each MCP server's tools under its name. */
export function toolsReport(mode: string, names: string[], servers: McpServerSummary[]): string {
  if (names.length === 0) return `No tools are available in this session (${mode} mode, or the editor offers no file or terminal access).`;
  const offered = new Set(names);
  const mcpNames = new Set(servers.flatMap((s) => s.tools));
  const builtin = names.filter((n) => !mcpNames.has(n));
  const groups = servers
    .map((s) => ({ name: s.name, tools: s.tools.filter((t) => offered.has(t)) }))
    .filter((g) => g.tools.length > 0)
    .map((g) => `MCP server ${g.name}: ${g.tools.join(", ")}`);
  return [`Tools in this session (${mode} mode): ${builtin.join(", ") || "none built in"}`, ...groups].join("\n");
}
