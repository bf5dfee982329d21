/**
 * A stdio MCP server (the MCP SDK's) whose tool list is as large as asked:
 * `BIG_TOOLS_COUNT` tools, each with a description of `BIG_TOOLS_BYTES`
 * characters, as the proxy runs an editor's server (`node big-tools-mcp-stdio.mjs`).
 * Plain JavaScript, so node starts it without tsx: under a loaded machine the
 * loader's start alone came close to the proxy's 10 s start timeout.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const count = Number(process.env["BIG_TOOLS_COUNT"] ?? "1");
const bytes = Number(process.env["BIG_TOOLS_BYTES"] ?? "10");

const server = new McpServer({ name: "big-tools", version: "1.0.0" });
for (let i = 0; i < count; i++) {
  server.registerTool(`tool_${i}`, { description: "d".repeat(bytes), annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: `tool ${i}` }] }));
}
await server.connect(new StdioServerTransport());
