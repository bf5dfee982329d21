/**
 * The body of a streamed chat-completions request, as UTF-8 bytes. It is what
 * `JSON.stringify` of the request object gives, but built from parts kept
 * between requests: each new message's JSON from `messageJson`, the tools'
 * JSON once per tool list, and the history's JSON as bytes kept from the
 * session's last request. A turn deep into a long session serializes only its
 * new messages, and neither joins nor copies the history again: making one
 * long string, by joining thousands of small ones or otherwise, costs V8 about
 * 1 ms per 200 KB on the benchmark machine (BENCHMARKS.md, figure 8), and a
 * new buffer per request would leave the isolate a history's worth of garbage
 * each turn.
 */
import { messageJson, takeMessageJson } from "./message-json.js";
import type { ChatMessage, ModelRequest, ToolSpec } from "./model-provider.js";

const encoder = new TextEncoder();
const toolsBytes = new WeakMap<readonly ToolSpec[], Uint8Array>();

/**
 * A session's request bytes, kept by the second message of its last request:
 * a session's history comes back as the same objects every turn, behind a
 * system prompt built anew, so its next request starts with them. `buffer`
 * holds room for the request's opening, then the JSON of `messages` (joined by
 * commas, `length` bytes from `historyAt`), then room for its closing. The
 * entry goes when its history does; it holds the history's JSON instead of
 * each message's own (`takeMessageJson`).
 */
interface SessionBytes {
  messages: readonly ChatMessage[];
  buffer: Uint8Array;
  historyAt: number;
  length: number;
}
const sessionBytes = new WeakMap<ChatMessage, SessionBytes>();

/**
 * Room a new buffer keeps for the history to grow into, as a share of the
 * history, and for the opening (model and system prompt), as a multiple of
 * today's: appending stays a copy of the new bytes only, and a session with a
 * short history holds little more than its request.
 */
const HISTORY_GROWTH = 1.5;
const OPENING_GROWTH = 2;

/**
 * The request's bytes. They are lent: the next body built for the same
 * session writes over the same buffer, so send them at once (`fetch` copies
 * a body when it is called) or copy them.
 */
export function chatRequestBody(request: Omit<ModelRequest, "signal">): Uint8Array {
  const [first, ...rest] = request.messages;
  const opening = encoder.encode(`{"model":${JSON.stringify(request.model)},"messages":[${first ? messageJson(first) : ""}${rest.length > 0 ? "," : ""}`);
  const closing = [encoder.encode('],"stream":true,"stream_options":{"include_usage":true}')];
  if (request.tools.length > 0) closing.push(encoder.encode(',"tools":'), encodedTools(request.tools));
  closing.push(encoder.encode(`${request.reasoningEffort ? `,"reasoning_effort":${JSON.stringify(request.reasoningEffort)}` : ""}}`));
  if (rest.length === 0) return concatBytes([opening, ...closing]);
  const kept = withHistory(rest, opening.length, byteLength(closing));
  const { buffer } = kept;
  buffer.set(opening, kept.historyAt - opening.length);
  const end = writePieces(buffer, closing, kept.historyAt + kept.length);
  return buffer.subarray(kept.historyAt - opening.length, end);
}

/**
 * The session's bytes with `messages`' JSON in the middle and room for a
 * request's opening and closing around it. When the last request began with the
 * same messages (the same objects in the same order) only what follows them
 * is serialized, into the room after them while there is room.
 */
function withHistory(messages: readonly ChatMessage[], openingRoom: number, closingRoom: number): SessionBytes {
  const kept = sessionBytes.get(messages[0]!);
  const reusable = kept !== undefined && startsWith(messages, kept.messages);
  const from = reusable ? kept.messages.length : 0;
  const added = messages.slice(from).map(takeMessageJson).join(",");
  const more = encoder.encode(from > 0 && added ? `,${added}` : added);
  const old = reusable ? kept : { buffer: new Uint8Array(0), historyAt: 0, length: 0 };
  const length = old.length + more.length;
  let { buffer, historyAt } = old;
  if (historyAt < openingRoom || buffer.length < historyAt + length + closingRoom) {
    // Too small: a new buffer, with room to grow, and the history's bytes copied once.
    historyAt = Math.ceil(openingRoom * OPENING_GROWTH);
    const grown = new Uint8Array(historyAt + Math.ceil(length * HISTORY_GROWTH) + closingRoom);
    grown.set(old.buffer.subarray(old.historyAt, old.historyAt + old.length), historyAt);
    buffer = grown;
  }
  buffer.set(more, historyAt + old.length);
  const entry = { messages, buffer, historyAt, length };
  sessionBytes.set(messages[0]!, entry);
  return entry;
}

/**
 * Whether `messages` begins with the same objects as `prefix`. A plain loop: `every` with a
 * callback cost 0.14 ms per request at 2,000 turns of history (BENCHMARKS.md, figure 8, session 20).
 */
function startsWith(messages: readonly ChatMessage[], prefix: readonly ChatMessage[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== messages[i]) return false;
  return true;
}

function encodedTools(tools: readonly ToolSpec[]): Uint8Array {
  let bytes = toolsBytes.get(tools);
  if (bytes === undefined) {
    bytes = encoder.encode(JSON.stringify(tools));
    toolsBytes.set(tools, bytes);
  }
  return bytes;
}

function concatBytes(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(byteLength(pieces));
  writePieces(out, pieces, 0);
  return out;
}

/** Writes `pieces` one after another into `buffer` from `at`; returns where they end. */
function writePieces(buffer: Uint8Array, pieces: readonly Uint8Array[], at: number): number {
  for (const piece of pieces) {
    buffer.set(piece, at);
    at += piece.length;
  }
  return at;
}

function byteLength(pieces: readonly Uint8Array[]): number {
  return pieces.reduce((n, piece) => n + piece.length, 0);
}
