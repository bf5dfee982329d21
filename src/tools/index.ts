/**
 * The tool registry: which tools a session offers, given what its client can do.
 * A tool whose client capability is missing is never offered to the model
 * (file tools follow `fs`, `terminal` follows `terminal`, `clarify` follows
 * `elicitation.form`); `delegate_task` is offered only to a session that may delegate.
 */
import { delegateTaskTool } from "../delegate/delegate-task.js";
import { clarifyTool } from "./clarify.js";
import { memoryTool } from "./memory.js";
import { patchTool } from "./patch.js";
import { readFileTool } from "./read-file.js";
import { searchFilesTool } from "./search-files.js";
import { sessionSearchTool } from "./session-search.js";
import { terminalTool } from "./terminal.js";
import type { AnyTool, ClientPort } from "./tool.js";
import { todoTool } from "./todo.js";
import { webFetchTool } from "./web-fetch.js";
import { writeFileTool } from "./write-file.js";

export const ALL_TOOLS: AnyTool[] = [
  readFileTool,
  writeFileTool,
  patchTool,
  searchFilesTool,
  terminalTool,
  webFetchTool,
  todoTool,
  clarifyTool,
  memoryTool,
  sessionSearchTool,
];

export function toolsFor(client: ClientPort, session: { canDelegate?: boolean } = {}): AnyTool[] {
  const capabilities = client.capabilities; // looked up among the attached connections at each read
  const tools = ALL_TOOLS.filter((tool) => tool.available?.(capabilities) ?? true);
  return session.canDelegate ? [...tools, delegateTaskTool] : tools;
}
