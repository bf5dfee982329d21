/**
 * Context compaction, the pure part: when to compact, which messages to
 * summarize, how to ask for the summary and what the model sees afterwards.
 */
import { messageChars, tokensFromChars } from "./message-json.js";
import type { ChatMessage } from "./model-provider.js";

export const COMPACTION_THRESHOLD = 0.8;
/** Cap on the transcript handed to the summarizer, so the summary call itself fits. */
const MAX_TRANSCRIPT_CHARS = 400_000;

/**
 * A rough token count (≈4 characters a token), good enough to decide when to
 * compact. Each message is measured once (`messageChars`); a session's running
 * total is `SessionStore.historyTokens()`, which needs no walk at all.
 */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m);
  return tokensFromChars(chars);
}

export function shouldCompact(tokens: number, contextWindow: number, threshold = COMPACTION_THRESHOLD): boolean {
  return tokens >= contextWindow * threshold;
}

/**
 * Splits history into what is summarized and what is kept verbatim. Before a
 * turn (`keepLatestPrompt`), the kept part starts at the last user message, so
 * the new prompt survives and a tool call is never separated from its result;
 * between turns (`/compress`) everything is summarized.
 */
export function splitForCompaction(history: ChatMessage[], keepLatestPrompt: boolean): { older: ChatMessage[]; kept: ChatMessage[] } {
  if (!keepLatestPrompt) return { older: history, kept: [] };
  let cut = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.role === "user") {
      cut = i;
      break;
    }
  }
  return { older: history.slice(0, cut), kept: history.slice(cut) };
}

export function summaryRequest(older: ChatMessage[]): ChatMessage[] {
  let transcript = older.map(render).join("\n\n");
  if (transcript.length > MAX_TRANSCRIPT_CHARS) transcript = `[…earlier part omitted…]\n${transcript.slice(-MAX_TRANSCRIPT_CHARS)}`;
  return [
    {
      role: "system",
      content:
        "You compress a coding session's conversation so the work can continue in a fresh context. " +
        "Write a concise summary: the user's goals, decisions made, files read or changed (with paths), commands run and their results, " +
        "open questions and the next steps. Keep exact identifiers, paths and error messages. Do not invent anything.",
    },
    { role: "user", content: `Conversation to summarize:\n\n${transcript}` },
  ];
}

/** The message that stands for the summarized turns in the new segment. */
export function summaryMessage(summary: string): ChatMessage {
  return { role: "user", content: `Summary of the earlier conversation (older turns were compacted to save context):\n\n${summary}` };
}

function render(message: ChatMessage): string {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
  const calls = "tool_calls" in message && message.tool_calls?.length
    ? `\n[tool calls: ${message.tool_calls.map((c) => ("function" in c ? `${c.function.name}(${c.function.arguments})` : c.type)).join(", ")}]`
    : "";
  return `${message.role.toUpperCase()}: ${content}${calls}`;
}
