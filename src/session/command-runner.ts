/**
 * What each slash command does. A command either answers in the conversation
 * or turns into a prompt for the model (`/retry`, `/queue` when idle).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { AGENT_VERSION } from "../acp/capabilities.js";
import { RequestError } from "@hermes-edge/protocol";
import { mcpReport, toolsReport } from "../mcp/mcp-report.js";
import type { McpServerSummary } from "../mcp/mcp-servers.js";
import { MODES } from "./modes.js";
import type { SessionRecord } from "./session-record.js";
import type { SettingsController } from "./session-settings.js";
import { helpText, type SlashCommand } from "./slash-commands.js";

/** `reply` is a promise when the answer needs a D1 read (`/memory`). */
export type CommandResult = { reply: string | Promise<string> } | { prompt: ContentBlock[] } | { compress: true };

export interface CommandDeps {
  record(): SessionRecord;
  settings: SettingsController;
  models: string[];
  toolNames(): string[];
  /** The MCP servers of the attached connections (`/mcp`, and `/tools` groups their tools). */
  mcpServers(): McpServerSummary[];
  contextWindow(): number;
  clearHistory(): void;
  /** The interrupted prompt, else the last one that was not a command. */
  lastPrompt(): ContentBlock[] | null;
  /** `/memory`: the project's memory as stored now. */
  memory(): Promise<string>;
}

export function runCommand(command: SlashCommand, deps: CommandDeps): CommandResult {
  const record = deps.record();
  switch (command.name) {
    case "help":
      return { reply: helpText() };
    case "version":
      return { reply: `hermes-edge ${AGENT_VERSION}` };
    case "tools":
      return { reply: toolsReport(record.mode, deps.toolNames(), deps.mcpServers()) };
    case "mcp":
      return { reply: mcpReport(deps.mcpServers()) };
    case "context": {
      const used = record.lastUsage;
      const window = deps.contextWindow();
      return {
        reply: used === null
          ? `No model call yet. Context window: ${window.toLocaleString("en-US")} tokens.`
          : `Context: ${used.toLocaleString("en-US")} of ${window.toLocaleString("en-US")} tokens used (${Math.round((used / window) * 100)}%).`,
      };
    }
    case "model":
      return setting(deps, "model", command.arg, () => `Model: ${record.model}. Available: ${deps.models.join(", ")}.`);
    case "mode":
      return setting(deps, "mode", command.arg, () => `Mode: ${record.mode}. Available: ${MODES.map((m) => m.id).join(", ")}.`);
    case "compress":
      return { compress: true };
    case "memory":
      return { reply: deps.memory() };
    case "reset":
      deps.clearHistory();
      return { reply: "Context cleared: the model starts fresh from here. The session and its transcript are kept." };
    case "retry": {
      const prompt = deps.lastPrompt();
      return prompt ? { prompt } : { reply: "There is no earlier prompt to retry." };
    }
    case "steer":
    case "queue":
      // Reaching here means no turn was running: the text is simply the next prompt.
      return command.arg ? { prompt: [{ type: "text", text: command.arg }] } : { reply: `Usage: /${command.name} <text>` };
  }
}

function setting(deps: CommandDeps, configId: "model" | "mode", arg: string, show: () => string): CommandResult {
  if (!arg) return { reply: show() };
  try {
    deps.settings.set(configId, arg);
    return { reply: `${configId === "model" ? "Model" : "Mode"} set to ${arg}.` };
  } catch (err) {
    if (err instanceof RequestError) return { reply: `Cannot set ${configId} to "${arg}". ${show()}` };
    throw err;
  }
}
