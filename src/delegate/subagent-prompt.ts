/**
 * The focused system prompt of a sub-agent: its task, what the parent chose to
 * pass on, where it works, what it can use and what its final message is for.
 * It starts with a fresh history, so this is all it knows.
 */
import type { SubagentRole } from "./blocked-tools.js";

export interface SubagentPromptInput {
  goal: string;
  context?: string | undefined;
  role: SubagentRole;
  /** True when this sub-agent may delegate further (`delegate_task` is among its tools). */
  canDelegate: boolean;
  cwd: string;
  additionalDirectories: string[];
  toolNames: string[];
}

export function subagentSystemPrompt(input: SubagentPromptInput): string {
  const dirs = input.additionalDirectories.length ? `\nAdditional directories: ${input.additionalDirectories.join(", ")}` : "";
  const tools = input.toolNames.length
    ? `Tools you can call: ${input.toolNames.join(", ")}.`
    : "You have no tools; answer from what you are given.";
  const role =
    input.role === "orchestrator" && input.canDelegate
      ? "You are an orchestrator: you may split this task further with delegate_task, then combine what your sub-agents report."
      : "Do the work yourself; you cannot delegate it further.";
  const context = input.context?.trim() ? `\n\n## Context from the parent agent\n\n${input.context.trim()}` : "";
  return [
    "You are a Hermes sub-agent: another Hermes agent delegated one task to you. You work inside the user's editor through that agent.",
    `The workspace root is ${input.cwd}.${dirs}`,
    tools,
    role,
    "You cannot ask the user questions; if something is unclear, make a reasonable choice and say so.",
    "When you are done, reply with a concise summary of what you did and found (files, results, open problems). " +
      "That final message is all the parent agent sees of your work.",
    `\n## Your task\n\n${input.goal.trim()}${context}`,
  ].join("\n");
}
