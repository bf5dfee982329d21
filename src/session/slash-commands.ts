/**
 * Slash commands: what the editor offers in its `/` menu, and how a prompt is
 * recognised as one. An unknown `/word` is not a command: it goes to the model.
 */
import type { AvailableCommand, ContentBlock } from "@agentclientprotocol/sdk";

export const COMMANDS = [
  { name: "help", description: "List the commands" },
  { name: "model", description: "Show or switch the model", input: { hint: "[model id]" } },
  { name: "mode", description: "Show or switch the mode", input: { hint: "[read_only | default | accept_edits | dont_ask]" } },
  { name: "tools", description: "List the tools this session can use" },
  { name: "mcp", description: "List the MCP servers, their status and tool counts" },
  { name: "context", description: "Tokens used and the context window" },
  { name: "compress", description: "Summarize older turns now to free context" },
  { name: "memory", description: "Show what the agent remembers about this project" },
  { name: "reset", description: "Clear the conversation the model sees; the session stays" },
  { name: "retry", description: "Run the last (or interrupted) prompt again" },
  { name: "steer", description: "Guide the running turn at its next model call", input: { hint: "<guidance>" } },
  { name: "queue", description: "Queue a prompt to run after the current turn", input: { hint: "<prompt>" } },
  { name: "version", description: "Show the hermes-edge version" },
] as const satisfies readonly AvailableCommand[];

export type CommandName = (typeof COMMANDS)[number]["name"];

export interface SlashCommand {
  name: CommandName;
  arg: string;
}

export function availableCommands(): AvailableCommand[] {
  return COMMANDS.map((c) => ({ ...c }));
}

/** A prompt is a command when it is one text block `/name [arg]` with a known name. */
export function parseSlashCommand(prompt: ContentBlock[]): SlashCommand | null {
  const [first] = prompt;
  if (prompt.length !== 1 || first?.type !== "text") return null;
  const match = first.text.trim().match(/^\/([a-z_]+)(?:\s+([\s\S]*))?$/);
  if (!match) return null;
  const name = match[1] as CommandName;
  if (!COMMANDS.some((c) => c.name === name)) return null;
  return { name, arg: (match[2] ?? "").trim() };
}

export function helpText(): string {
  return ["Commands:", ...COMMANDS.map((c) => `- \`/${c.name}${"input" in c ? ` ${c.input.hint}` : ""}\` — ${c.description}`)].join("\n");
}
