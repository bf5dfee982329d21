/**
 * A turn cut off mid-tool (a restart, an eviction) can leave an assistant
 * message whose tool calls have no results; OpenAI-compatible APIs reject
 * such a history. These are the tool messages that close it again.
 */
import type { ChatMessage } from "./model-provider.js";

export function unansweredToolResults(history: ChatMessage[], reason: string): ChatMessage[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;
    const answered = new Set(history.slice(i + 1).flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
    return message.tool_calls.filter((c) => !answered.has(c.id)).map((c) => ({ role: "tool", tool_call_id: c.id, content: reason }));
  }
  return [];
}
