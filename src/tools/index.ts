/**
 * The tool registry: which tools a session offers, given what its client can do.
 * Tool modules land here one file each (issue: tools on the editor's machine).
 */
import type { AnyTool, ClientPort } from "./tool.js";

export const ALL_TOOLS: AnyTool[] = [];

export function toolsFor(client: ClientPort): AnyTool[] {
  return ALL_TOOLS.filter((tool) => tool.available?.(client.capabilities) ?? true);
}
