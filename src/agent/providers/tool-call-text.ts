/**
 * Tool calls written as text by a model that has no tool-call channel (an
 * upstream ACP agent answers with plain text). `<tool_call>{"name", "arguments"}</tool_call>`
 * blocks first; only when there are none, fenced ```json blocks holding
 * `name` and `arguments`. Anything that does not parse as a call stays text:
 * a model quoting the format inside code, a truncated block, invalid JSON.
 */
import type { ModelToolCall } from "../model-provider.js";

export interface ParsedToolText {
  /** The text with the call blocks taken out. */
  text: string;
  calls: Omit<ModelToolCall, "id">[];
}

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

export function parseToolCallText(text: string): ParsedToolText {
  const tagged = parseTagged(text);
  if (tagged.calls.length > 0) return tagged;
  return parseFencedJson(text);
}

/** A call's JSON: an object with a string `name` and object (or absent) `arguments`. */
function toCall(json: string): Omit<ModelToolCall, "id"> | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.name !== "string" || value.name.trim() === "") return null;
  let args = value.arguments ?? {};
  if (typeof args === "string") {
    // Some models double-encode the arguments.
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (!isRecord(args)) return null;
  return { name: value.name.trim(), arguments: JSON.stringify(args) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseTagged(text: string): ParsedToolText {
  const code = codeRanges(text);
  const calls: ParsedToolText["calls"] = [];
  let out = "";
  let from = 0;
  let at = text.indexOf(OPEN);
  while (at !== -1) {
    if (insideAny(at, code)) {
      at = text.indexOf(OPEN, at + OPEN.length);
      continue;
    }
    const bodyStart = at + OPEN.length;
    const found = closingFor(text, bodyStart);
    if (!found) {
      at = text.indexOf(OPEN, bodyStart);
      continue;
    }
    calls.push(found.call);
    out += text.slice(from, at);
    from = found.end;
    at = text.indexOf(OPEN, from);
  }
  out += text.slice(from);
  return { text: tidy(out), calls };
}

/**
 * The first `</tool_call>` after which the body is a call. Trying each one lets
 * an argument contain the closing tag as a string; a block whose stream was cut
 * off before its closing tag still counts when its JSON is complete.
 */
function closingFor(text: string, bodyStart: number): { call: Omit<ModelToolCall, "id">; end: number } | null {
  for (let close = text.indexOf(CLOSE, bodyStart); close !== -1; close = text.indexOf(CLOSE, close + 1)) {
    const call = toCall(text.slice(bodyStart, close));
    if (call) return { call, end: afterSeam(text, close + CLOSE.length) };
  }
  const call = toCall(text.slice(bodyStart));
  return call ? { call, end: text.length } : null;
}

/** Where the text resumes after a removed block: past its line's trailing space and newline. */
function afterSeam(text: string, end: number): number {
  const rest = /^[ \t]*\n?/.exec(text.slice(end));
  return end + (rest?.[0].length ?? 0);
}

const FENCE = /^([ \t]*)(`{3,}|~{3,})([^\n`]*)$/gm;

interface Fence {
  start: number;
  bodyStart: number;
  bodyEnd: number;
  end: number;
  info: string;
}

/** Fenced code blocks; an unclosed fence runs to the end of the text. */
function fences(text: string): Fence[] {
  const found: Fence[] = [];
  let open: { start: number; bodyStart: number; marker: string; info: string } | null = null;
  for (const match of text.matchAll(FENCE)) {
    const marker = match[2]!;
    const start = match.index;
    const lineEnd = start + match[0].length;
    if (!open) {
      open = { start, bodyStart: Math.min(lineEnd + 1, text.length), marker, info: match[3]!.trim().toLowerCase() };
    } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && match[3]!.trim() === "") {
      found.push({ start: open.start, bodyStart: open.bodyStart, bodyEnd: start, end: lineEnd, info: open.info });
      open = null;
    }
  }
  if (open) found.push({ start: open.start, bodyStart: open.bodyStart, bodyEnd: text.length, end: text.length, info: open.info });
  return found;
}

/** Fenced blocks and inline `code` spans: a tool call quoted there is an example, not a call. */
function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = fences(text).map((f) => [f.start, f.end]);
  for (const match of text.matchAll(/(`+)(?!`)[^\n]*?[^`]\1(?!`)/g)) {
    if (!insideAny(match.index, ranges)) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

function insideAny(at: number, ranges: [number, number][]): boolean {
  return ranges.some(([start, end]) => at >= start && at < end);
}

function parseFencedJson(text: string): ParsedToolText {
  const calls: ParsedToolText["calls"] = [];
  let out = "";
  let from = 0;
  for (const fence of fences(text)) {
    if (fence.info !== "json" || fence.bodyEnd === fence.end) continue; // an unclosed fence was cut off: text
    const call = toCall(text.slice(fence.bodyStart, fence.bodyEnd));
    if (!call) continue;
    calls.push(call);
    out += text.slice(from, fence.start);
    from = afterSeam(text, fence.end);
  }
  out += text.slice(from);
  return calls.length > 0 ? { text: tidy(out), calls } : { text, calls };
}

/** A block at the end leaves the space before it behind. */
function tidy(text: string): string {
  return text.trimEnd();
}
