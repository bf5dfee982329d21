/**
 * An MCP tool's arguments are checked against the server's JSON Schema. A
 * schema the validator cannot compile or run fails that tool's calls with the
 * reason; it never throws out of listing the tools or out of the check.
 */
import { describe, expect, it } from "vitest";
import { mcpTool, type McpCaller } from "../../../src/mcp/mcp-tool.js";
import type { McpToolInfo } from "../../../src/mcp/mcp-link.js";

const server: McpCaller = { name: "srv", call: async () => ({ content: [{ type: "text", text: "ok" }] }) };

function tool(inputSchema: Record<string, unknown>) {
  return mcpTool(server, { name: "t", inputSchema } as McpToolInfo, "mcp__srv__t");
}

describe("mcpTool's argument check", () => {
  it("accepts what matches the schema and names what does not", () => {
    const t = tool({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    expect(t.inputSchema.safeParse({ n: 1 })).toMatchObject({ success: true, data: { n: 1 } });
    const bad = t.inputSchema.safeParse({ n: "one" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/^does not match t's input schema: /);
  });

  it("fails the calls of a tool whose schema cannot be compiled, instead of throwing when the tools are listed", () => {
    const t = tool({ $id: "http://[::1", type: "object" });
    const result = t.inputSchema.safeParse({});
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("the server's input schema for t cannot be used");
  });

  it("turns a schema that throws while checking (a pattern that is no valid Unicode regex) into a failed check", () => {
    const t = tool({ type: "object", properties: { id: { type: "string", pattern: "^[\\w-.]+$" } } });
    const result = t.inputSchema.safeParse({ id: "a-b" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("input schema");
  });
});
