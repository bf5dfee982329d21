/**
 * An MCP server closed while it is still connecting stays closed: the link
 * that arrives afterwards is closed, not kept, and calls are refused.
 */
import { describe, expect, it } from "vitest";
import type { McpLink } from "../../../src/mcp/mcp-link.js";
import { McpServer } from "../../../src/mcp/mcp-server.js";

function fakeLink(): McpLink & { closed: number } {
  return {
    closed: 0,
    listTools: async () => [{ name: "t", inputSchema: { type: "object" } }],
    callTool: async () => ({ content: [] }),
    async close() {
      this.closed += 1;
    },
  };
}

describe("McpServer", () => {
  it("does not come back to life when closed during its connect, and closes the link that arrives", async () => {
    const link = fakeLink();
    let arrive!: (l: McpLink) => void;
    const server = new McpServer("srv", "http", () => new Promise<McpLink>((resolve) => (arrive = resolve)));
    const started = server.start();
    await server.close();
    arrive(link);
    await started;
    expect([server.status, server.cause, link.closed]).toEqual(["skipped", "closed", 1]);
    await expect(server.call("t", {}, new AbortController().signal)).rejects.toThrow(/was closed/);
    await server.start(); // nothing connects it again
    expect(server.status).toBe("skipped");
  });

  it("connects and lists the tools when left alone", async () => {
    const server = new McpServer("srv", "http", async () => fakeLink());
    await server.start();
    expect([server.status, server.tools.map((t) => t.name)]).toEqual(["ready", ["t"]]);
    await expect(server.call("t", {}, new AbortController().signal)).resolves.toEqual({ content: [] });
  });
});
