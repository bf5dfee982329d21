/**
 * `memory`: what the agent keeps about a project across sessions (Hermes'
 * MEMORY.md). Scoped to the tenant and the session's cwd, stored in D1 and
 * bounded at 4,000 characters. The system prompt shows a frozen snapshot
 * (session/memory-snapshot.ts), so an edit shows in this tool's result at once
 * and in the prompt from the next session or compaction on. Kind `edit`: it
 * changes stored content, so `read_only` mode withholds it like every edit tool;
 * sub-agents never get it (delegate/blocked-tools.ts).
 */
import * as z from "zod";
import { MemoryConflictError, MemoryStore } from "../db/memory-store.js";
import { applyMemoryEdit, formatMemory, memoryUsage, zMemoryAction, type MemoryEdit } from "./memory-entries.js";
import { textBlock } from "./render.js";
import { ToolError, type Tool } from "./tool.js";

const inputSchema = z.object({
  action: zMemoryAction.describe("`add` a new entry, `replace` the entry containing `old_text` with `content`, or `remove` it."),
  content: z.string().max(20_000).optional().describe("The entry's text (for add and replace): one durable fact, convention or decision."),
  old_text: z.string().max(4_000).optional().describe("A unique part of the entry to replace or remove."),
});

export const memoryTool: Tool<MemoryEdit> = {
  name: "memory",
  description:
    "Keep notes about this project that later sessions will see in their system prompt: conventions, commands that work, " +
    "decisions and their reasons, user preferences. Not for task progress. `add` appends an entry; `replace` swaps the entry " +
    "containing `old_text` for `content`; `remove` deletes the entry containing `old_text`. The memory holds at most 4,000 " +
    "characters: consolidate entries when it is full. Changes take effect in the prompt from the next session on.",
  kind: "edit",
  inputSchema,
  title: (input) =>
    input.action === "add"
      ? "Remember for this project"
      : input.action === "replace"
        ? "Update project memory"
        : "Forget from project memory",
  async run(input, ctx) {
    let entries: string[];
    try {
      entries = await new MemoryStore(ctx.db).edit(ctx.tenant, ctx.cwd, (current) => applyMemoryEdit(current, input));
    } catch (err) {
      if (err instanceof MemoryConflictError) throw new ToolError(err.message, { cause: err });
      throw err;
    }
    const body = entries.length ? formatMemory(entries) : "(empty)";
    return {
      output: `Project memory updated (${memoryUsage(entries)}). Later sessions see it in their system prompt.\n${body}`,
      content: [textBlock(body)],
      rawOutput: { cwd: ctx.cwd, entries },
    };
  },
};
