/**
 * How tool results look: bounded text for the model, short previews for the
 * editor, and the ACP content blocks (text, diff, terminal) tools return.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";

/** Editor previews stay small: the editor renders them inline in the thread. */
export const PREVIEW_CHARS = 5_000;
/** The most a single tool result puts into the model's context. */
export const MODEL_OUTPUT_CHARS = 100_000;

export interface Truncated {
  text: string;
  truncated: boolean;
  /** Characters dropped from the end. */
  omitted: number;
}

/**
 * Keeps at most `limit` characters from the start, preferring to cut at a line
 * break when one is near the limit, and never between the halves of a
 * surrogate pair (which would produce an invalid string on the wire).
 */
export function truncateText(text: string, limit: number): Truncated {
  if (text.length <= limit) return { text, truncated: false, omitted: 0 };
  let cut = limit;
  const newline = text.lastIndexOf("\n", limit - 1);
  if (newline >= limit * 0.8) cut = newline + 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return { text: text.slice(0, cut), truncated: true, omitted: text.length - cut };
}

/** Text for the model: bounded, with a note saying what was cut and how to see more. */
export function boundedForModel(text: string, hint: string, limit = MODEL_OUTPUT_CHARS): Truncated {
  const cut = truncateText(text, limit);
  if (!cut.truncated) return cut;
  return {
    ...cut,
    text: `${cut.text}\n\n[Truncated: ${formatCount(cut.omitted)} more characters not included (limit ${formatCount(limit)}). ${hint}]`,
  };
}

/** A text block for the editor, cut to `PREVIEW_CHARS` with a note saying how much is hidden. */
export function previewBlock(text: string, limit = PREVIEW_CHARS): ToolCallContent {
  return textBlock(previewText(text, limit));
}

/** `text` cut to `limit` characters, ending with a note saying how much is hidden. */
export function previewText(text: string, limit = PREVIEW_CHARS): string {
  const cut = truncateText(text, limit);
  return cut.truncated ? `${cut.text}\n… ${formatCount(cut.omitted)} more characters not shown` : cut.text;
}

export function textBlock(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** `oldText: null` tells the editor the file is new. */
export function diffBlock(path: string, oldText: string | null, newText: string): ToolCallContent {
  return { type: "diff", path, oldText, newText };
}

export function terminalBlock(terminalId: string): ToolCallContent {
  return { type: "terminal", terminalId };
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** 1-based number of the first line where `before` and `after` differ (for `locations`). */
export function firstChangedLine(before: string, after: string): number {
  const limit = Math.min(before.length, after.length);
  let i = 0;
  while (i < limit && before.charCodeAt(i) === after.charCodeAt(i)) i++;
  let line = 1;
  for (let j = 0; j < i; j++) if (before.charCodeAt(j) === 10) line++;
  return line;
}
