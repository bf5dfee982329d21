/**
 * Which tools a sub-agent may not have, and who may delegate at all. A sub-agent
 * never talks to the user (`clarify`) and never writes the project's memory
 * (`memory`); it delegates further only as an orchestrator, and only while the
 * depth limit allows.
 */
import type { AnyTool } from "../tools/tool.js";

export const DELEGATE_TOOL_NAME = "delegate_task";

export type SubagentRole = "leaf" | "orchestrator";

/** Blocked for every sub-agent, whatever its role. */
export const ALWAYS_BLOCKED_TOOLS: ReadonlySet<string> = new Set(["memory", "clarify"]);

/**
 * Whether a session at `depth` (0 for a root or fork) may spawn sub-agents.
 * A root may whenever the limit is above 0; a sub-agent only as an orchestrator
 * whose children would still be within `maxDepth`.
 */
export function mayDelegate(role: SubagentRole | undefined, depth: number, maxDepth: number): boolean {
  if (depth >= maxDepth) return false;
  return depth === 0 || role === "orchestrator";
}

/** The tool names a sub-agent at `depth` with `role` does not get. */
export function blockedToolsFor(role: SubagentRole, depth: number, maxDepth: number): ReadonlySet<string> {
  const blocked = new Set(ALWAYS_BLOCKED_TOOLS);
  if (!mayDelegate(role, depth, maxDepth)) blocked.add(DELEGATE_TOOL_NAME);
  return blocked;
}

/** The parent's tools minus those the sub-agent may not have. */
export function subagentTools(tools: AnyTool[], role: SubagentRole, depth: number, maxDepth: number): AnyTool[] {
  const blocked = blockedToolsFor(role, depth, maxDepth);
  return tools.filter((tool) => !blocked.has(tool.name));
}
