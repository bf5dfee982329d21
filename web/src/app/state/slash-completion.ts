/** Which of the session's slash commands a prompt that starts with `/` could be completing. Pure. */
import type { AvailableCommand } from "@agentclientprotocol/sdk";

export function matchingCommands(text: string, commands: readonly AvailableCommand[]): AvailableCommand[] {
  const match = /^\/(\S*)$/.exec(text);
  if (!match) return [];
  return commands.filter((c) => c.name.startsWith(match[1]!));
}
