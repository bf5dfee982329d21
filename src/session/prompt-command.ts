/**
 * A prompt that is a slash command, run as its turn: the command answers in
 * the conversation (`/help`, `/model`, `/memory`, …), compacts (`/compress`),
 * or turns into the prompt the model gets (`/retry`, `/queue` when idle).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { contextWindowFor } from "../config.js";
import { runCommand } from "./command-runner.js";
import { showMemory } from "./memory-snapshot.js";
import { compactNow, NO_MODEL_MESSAGE, toolsForTurn, type TurnPorts } from "./model-turn.js";
import type { SettingsController } from "./session-settings.js";
import { parseSlashCommand, type SlashCommand } from "./slash-commands.js";

/** The turn's stop reason when the command was the whole turn, or the prompt it stands for. */
export type CommandTurn = { stopReason: "end_turn" | "cancelled" } | { prompt: ContentBlock[] };

export async function runPromptCommand(
  command: SlashCommand,
  turn: TurnPorts,
  settings: SettingsController,
  connectionId: string | null,
  signal: AbortSignal,
): Promise<CommandTurn> {
  const { log } = turn;
  const { store } = log;
  const result = runCommand(command, {
    record: () => store.record()!,
    settings,
    models: turn.settings.models,
    toolNames: () => toolsForTurn(turn, connectionId).map((t) => t.name),
    mcpServers: () => turn.mcp?.summaries() ?? [],
    contextWindow: () => contextWindowFor(store.record()!.model, turn.settings),
    clearHistory: () => store.clearHistory(),
    lastPrompt: () => lastPrompt(turn),
    memory: () => showMemory(turn.memory, store.record()!),
  });
  if ("prompt" in result) return { prompt: result.prompt };
  if ("reply" in result) {
    log.emit(agentMessageChunk(await result.reply, turn.newId()));
    return { stopReason: "end_turn" };
  }
  return compress(turn, connectionId, signal);
}

/** `/compress`: compact now, whatever the size, and say what happened. */
async function compress(turn: TurnPorts, connectionId: string | null, signal: AbortSignal): Promise<CommandTurn> {
  const result = await compactNow(turn, connectionId, signal);
  const reply =
    result.status === "completed"
      ? `Compacted the earlier conversation into a summary; session ${turn.log.store.record()!.sessionId} continues from it.`
      : result.status === "skipped"
        ? "Nothing to compact yet: there are no earlier turns."
        : result.status === "no_model"
          ? NO_MODEL_MESSAGE
          : null;
  if (reply) turn.log.emit(agentMessageChunk(reply, turn.newId()));
  return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
}

/** `/retry`: the interrupted prompt, else the last one that was not a command. */
function lastPrompt(turn: TurnPorts): ContentBlock[] | null {
  const { store } = turn.log;
  const interrupted = store.record()!.interruptedPrompt;
  if (interrupted) return [{ type: "text", text: interrupted }];
  return store.recentPrompts(20).find((p) => !parseSlashCommand(p)) ?? null;
}
