import { describe, expect, it } from "vitest";
import { mcpReport } from "../../../src/mcp/mcp-report.js";
import { MAX_MCP_TOOLS, type McpServerSummary } from "../../../src/mcp/mcp-servers.js";

const server = (name: string, tools: number): McpServerSummary =>
  ({ name, transport: "http", status: "connected", cause: undefined, tools: Array.from({ length: tools }, (_, i) => `mcp__${name}__t${i}`) }) as unknown as McpServerSummary;

describe("mcpReport", () => {
  it("lists each server with its status and tool count", () => {
    expect(mcpReport([server("github", 1), server("docs", 3)])).toBe("MCP servers:\n- **github** (http): connected, 1 tool\n- **docs** (http): connected, 3 tools");
  });

  it("says when the servers offer more tools than a model request may carry", () => {
    const report = mcpReport([server("github", 90), server("docs", 20)]);
    expect(report).toContain(`Only the first ${MAX_MCP_TOOLS} of these 110 tools are offered to the model`);
    expect(mcpReport([server("github", MAX_MCP_TOOLS)])).not.toContain("Only the first");
  });
});
