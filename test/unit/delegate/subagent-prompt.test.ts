import { describe, expect, it } from "vitest";
import { subagentSystemPrompt, type SubagentPromptInput } from "../../../src/delegate/subagent-prompt.js";

const base: SubagentPromptInput = {
  goal: "Find every caller of parseConfig",
  role: "leaf",
  canDelegate: false,
  cwd: "/work/app",
  additionalDirectories: [],
  toolNames: ["read_file", "search_files"],
};

describe("subagentSystemPrompt", () => {
  it("states the task, the workspace and the tools, and asks for a final summary", () => {
    const prompt = subagentSystemPrompt(base);
    expect(prompt).toContain("## Your task\n\nFind every caller of parseConfig");
    expect(prompt).toContain("The workspace root is /work/app.");
    expect(prompt).toContain("Tools you can call: read_file, search_files.");
    expect(prompt).toMatch(/final message is all the parent agent sees/);
    expect(prompt).toMatch(/cannot ask the user questions/);
    expect(prompt).toContain("cannot delegate it further");
    expect(prompt).not.toContain("Context from the parent agent");
  });

  it("adds the parent's context and extra directories when given", () => {
    const prompt = subagentSystemPrompt({ ...base, context: "  Config lives in src/config.ts  ", additionalDirectories: ["/work/lib"] });
    expect(prompt).toContain("## Context from the parent agent\n\nConfig lives in src/config.ts");
    expect(prompt).toContain("Additional directories: /work/lib");
  });

  it("tells an orchestrator it may delegate only when it actually can", () => {
    expect(subagentSystemPrompt({ ...base, role: "orchestrator", canDelegate: true })).toMatch(/you may split this task further with delegate_task/);
    expect(subagentSystemPrompt({ ...base, role: "orchestrator", canDelegate: false })).toContain("cannot delegate it further");
  });

  it("says so when there are no tools", () => {
    expect(subagentSystemPrompt({ ...base, toolNames: [] })).toContain("You have no tools");
  });
});
