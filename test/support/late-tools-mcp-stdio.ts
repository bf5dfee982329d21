/**
 * A stdio MCP server (the MCP SDK's) that lists no tools until told to, as
 * the proxy runs an editor's server (`node` on this file built by bundled-script.ts).
 * Once the file named by `LATE_TOOLS_FLAG` exists it enables its tool `hello`
 * (which sends `notifications/tools/list_changed` at once, while nothing is
 * asked of it), then logs `LATE_TOOLS_LOGS` messages (`notifications/message`),
 * and says `late tools enabled` on stderr.
 */
import { existsSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const flag = process.env["LATE_TOOLS_FLAG"];
const logs = Number(process.env["LATE_TOOLS_LOGS"] ?? "0");

const server = new McpServer({ name: "late-tools", version: "1.0.0" }, { capabilities: { logging: {} } });
const hello = server.registerTool("hello", { description: "Says hello", annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "hello from a late tool" }],
}));
// Disabled before it connects: the server declares tools (with listChanged) and lists none.
hello.disable();
await server.connect(new StdioServerTransport());

const timer = setInterval(() => {
  if (!flag || !existsSync(flag)) return;
  clearInterval(timer);
  hello.enable();
  void (async () => {
    for (let i = 0; i < logs; i++) await server.sendLoggingMessage({ level: "info", data: `log ${i}` });
    process.stderr.write("late tools enabled\n");
  })();
}, 50);
