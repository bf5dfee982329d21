/**
 * The project memory the system prompt shows: a snapshot taken when a history
 * segment starts (the session's first turn, after a compaction or a `/reset`)
 * and kept frozen for that segment, so the prompt prefix stays the same from
 * turn to turn and the model provider's prompt cache keeps working. A `memory`
 * edit shows in its tool result at once, and in the prompt from the next
 * session or segment on. Also what `/memory` answers.
 */
import type { MemoryStore } from "../db/memory-store.js";
import { formatMemory, memoryUsage } from "../tools/memory-entries.js";
import type { SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";

/** The memory text for this segment's system prompt ("" when the project has none). */
export async function memoryForPrompt(store: SessionStore, memory: MemoryStore): Promise<string> {
  const record = store.record()!;
  const frozen = record.memorySnapshot;
  if (frozen && frozen.segment === record.segment && frozen.cwd === record.cwd) return frozen.text;
  try {
    const { entries } = await memory.get(record.tenant, record.cwd);
    const text = formatMemory(entries);
    store.updateRecord({ memorySnapshot: { segment: record.segment, cwd: record.cwd, text } });
    return text;
  } catch (err) {
    // A turn never fails for want of memory; the next turn tries again.
    console.error("reading project memory failed", err);
    return "";
  }
}

/** The system prompt with the project's memory appended, when it has any. */
export function withProjectMemory(systemPrompt: string, memory: string): string {
  if (!memory) return systemPrompt;
  return `${systemPrompt}\n\nProject memory (what earlier sessions in this project kept; keep it current with the memory tool):\n${memory}`;
}

/** `/memory`: the project's memory as stored now. */
export async function showMemory(memory: MemoryStore, record: Pick<SessionRecord, "tenant" | "cwd">): Promise<string> {
  const { entries } = await memory.get(record.tenant, record.cwd);
  if (entries.length === 0) return `No project memory yet for ${record.cwd}. The agent adds entries with its memory tool.`;
  return `Project memory for ${record.cwd} (${memoryUsage(entries)}):\n${formatMemory(entries)}`;
}
