/** The system prompt: who the agent is, where it works, what it can use. */
import type { AnyTool } from "../tools/tool.js";

export function systemPrompt(session: { cwd: string; additionalDirectories: string[] }, tools: AnyTool[]): string {
  const dirs = session.additionalDirectories.length ? `\nAdditional directories: ${session.additionalDirectories.join(", ")}` : "";
  const toolLine = tools.length
    ? `Tools you can call: ${tools.map((t) => t.name).join(", ")}. Prefer them over guessing file contents.`
    : "You have no tools in this session; answer from the conversation alone.";
  return [
    "You are Hermes, a coding agent working inside the user's editor through the Agent Client Protocol.",
    `The workspace root is ${session.cwd}.${dirs}`,
    toolLine,
    "Be concise and precise. Say what you changed and why.",
  ].join("\n");
}
