/**
 * A prompt that is a slash command, run as its turn: the command answers in
 * the conversation (`/help`, `/model`, `/memory`, …), compacts (`/compress`),
 * or turns into the prompt the model gets (`/retry`, `/queue` when idle).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { runCommand } from "./command-runner.js";
import { showMemory } from "./memory-snapshot.js";
import { compactNow, NO_MODEL_MESSAGE } from "./model-turn.js";
import type { SettingsController } from "./session-settings.js";
import { parseSlashCommand, type SlashCommand } from "./slash-commands.js";
import type { TurnContext } from "./turn-context.js";

/** The turn's stop reason when the command was the whole turn, or the prompt it stands for. */
export type CommandTurn = { stopReason: "end_turn" | "cancelled" } | { prompt: ContentBlock[] };

export async function runPromptCommand(command: SlashCommand, ctx: TurnContext, settings: SettingsController): Promise<CommandTurn> {
  const { store, session } = ctx;
  const result = runCommand(command, {
    record: () => ctx.record(),
    settings,
    models: session.settings.models,
    toolNames: () => ctx.offeredTools().map((t) => t.name),
    mcpServers: () => session.mcp?.summaries() ?? [],
    contextWindow: () => ctx.contextWindow(),
    clearHistory: () => store.clearHistory(),
    lastPrompt: () => lastPrompt(ctx),
    memory: () => showMemory(session.memory, ctx.record()),
  });
  if ("prompt" in result) return { prompt: result.prompt };
  if ("reply" in result) {
    ctx.announce(agentMessageChunk(await result.reply, ctx.newId()));
    return { stopReason: "end_turn" };
  }
  return compress(ctx);
}

/** `/compress`: compact now, whatever the size, and say what happened. */
async function compress(ctx: TurnContext): Promise<CommandTurn> {
  const result = await compactNow(ctx);
  const reply =
    result.status === "completed"
      ? `Compacted the earlier conversation into a summary; session ${ctx.record().sessionId} continues from it.`
      : result.status === "skipped"
        ? "Nothing to compact yet: there are no earlier turns."
        : result.status === "no_model"
          ? NO_MODEL_MESSAGE
          : null;
  if (reply) ctx.announce(agentMessageChunk(reply, ctx.newId()));
  return { stopReason: ctx.signal.aborted ? "cancelled" : "end_turn" };
}

/** `/retry`: the interrupted prompt, else the last one that was not a command. */
function lastPrompt(ctx: TurnContext): ContentBlock[] | null {
  const interrupted = ctx.record().interruptedPrompt;
  if (interrupted) return [{ type: "text", text: interrupted }];
  return ctx.store.recentPrompts(20).find((p) => !parseSlashCommand(p)) ?? null;
}
