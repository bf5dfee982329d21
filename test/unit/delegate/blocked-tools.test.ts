import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ALWAYS_BLOCKED_TOOLS, blockedToolsFor, subagentTools, DELEGATE_TOOL_NAME, mayDelegate } from "../../../src/delegate/blocked-tools.js";
import { ALL_TOOLS, toolsFor } from "../../../src/tools/index.js";
import type { AnyTool } from "../../../src/tools/tool.js";
import { ALL_CAPS, FakeClient } from "../tools/fakes.js";

const fake = (name: string): AnyTool => ({
  name,
  description: name,
  kind: "other",
  inputSchema: z.object({}),
  title: () => name,
  run: async () => ({ output: "" }),
});

const names = (tools: AnyTool[]) => tools.map((t) => t.name);

describe("mayDelegate", () => {
  it.each([
    [undefined, 0, 1, true],
    [undefined, 0, 0, false],
    ["leaf" as const, 1, 1, false],
    ["orchestrator" as const, 1, 1, false],
    ["orchestrator" as const, 1, 2, true],
    ["leaf" as const, 1, 2, false],
    ["orchestrator" as const, 2, 2, false],
  ])("role %s at depth %i with limit %i: %s", (role, depth, max, expected) => {
    expect(mayDelegate(role, depth, max)).toBe(expected);
  });
});

describe("blocked tools", () => {
  it("always blocks memory and clarify, and names only tools that exist", () => {
    expect([...ALWAYS_BLOCKED_TOOLS].sort()).toEqual(["clarify", "memory"]);
    expect([...blockedToolsFor("orchestrator", 1, 5)].sort()).toEqual(["clarify", "memory"]);
    for (const name of ALWAYS_BLOCKED_TOOLS) expect(names(ALL_TOOLS)).toContain(name);
  });

  it("blocks delegate_task for a leaf, and for an orchestrator at the depth limit", () => {
    expect(blockedToolsFor("leaf", 1, 5).has(DELEGATE_TOOL_NAME)).toBe(true);
    expect(blockedToolsFor("orchestrator", 1, 1).has(DELEGATE_TOOL_NAME)).toBe(true);
    expect(blockedToolsFor("orchestrator", 1, 2).has(DELEGATE_TOOL_NAME)).toBe(false);
  });

  it("removes exactly the blocked tools from the parent's set", () => {
    const parent = ["read_file", "memory", "clarify", DELEGATE_TOOL_NAME, "terminal"].map(fake);
    expect(names(subagentTools(parent, "leaf", 1, 1))).toEqual(["read_file", "terminal"]);
    expect(names(subagentTools(parent, "orchestrator", 1, 2))).toEqual(["read_file", DELEGATE_TOOL_NAME, "terminal"]);
  });
});

describe("the registry and delegate_task", () => {
  it("offers delegate_task only to a session that may delegate, and never in ALL_TOOLS", () => {
    const client = new FakeClient(ALL_CAPS);
    expect(names(ALL_TOOLS)).not.toContain(DELEGATE_TOOL_NAME);
    expect(names(toolsFor(client))).not.toContain(DELEGATE_TOOL_NAME);
    expect(names(toolsFor(client, { canDelegate: false }))).not.toContain(DELEGATE_TOOL_NAME);
    expect(names(toolsFor(client, { canDelegate: true })).at(-1)).toBe(DELEGATE_TOOL_NAME);
  });
});
