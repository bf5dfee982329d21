import { describe, expect, it } from "vitest";
import { MAX_TOOL_NAME, mcpToolName } from "../../../src/mcp/tool-name.js";

describe("mcpToolName", () => {
  it("joins server and tool as mcp__<server>__<tool>", () => {
    expect(mcpToolName("everything", "echo")).toBe("mcp__everything__echo");
  });

  it("turns characters outside [A-Za-z0-9_-] into _", () => {
    expect(mcpToolName("docs site/v2", "get.page")).toBe("mcp__docs_site_v2__get_page");
  });

  it("cuts long names to 64 characters ending in a stable hash that tells them apart", () => {
    const a = mcpToolName("a-very-long-server-name-for-testing", "an-equally-long-tool-name-number-one");
    const b = mcpToolName("a-very-long-server-name-for-testing", "an-equally-long-tool-name-number-two");
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(b).toHaveLength(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcp__a-very-long-server-name-for-testing__an-equally-lon_[0-9a-z]{7}$/);
    expect(mcpToolName("a-very-long-server-name-for-testing", "an-equally-long-tool-name-number-one")).toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
