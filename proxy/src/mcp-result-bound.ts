/**
 * Keeps a stdio server's `tools/call` result well under the service's frame
 * limit (4 MiB by default): text (of text blocks and of embedded text
 * resources) is cut with a note saying how much, and large binary content is
 * replaced by a note, so a huge result reaches the agent as a bounded one
 * instead of a frame it must refuse. Sizes are UTF-8 bytes of the JSON the
 * result travels as, so the bounded result never exceeds `limit`. The agent
 * bounds what the model reads much further. Other answers (a tool list) are
 * refused when they would not fit in a frame, with a message that says by how much.
 * @module
 */
import { DEFAULT_MAX_FRAME_BYTES, jsonBytes, utf8Bytes } from "@hermes-edge/protocol";

export const MAX_RESULT_BYTES = 1_000_000;
/** Room left per block for the note that replaces or ends its cut payload. */
const NOTE_ROOM = 200;

type Resource = { text?: unknown; blob?: unknown } & Record<string, unknown>;
type Block = { type?: unknown; text?: unknown; data?: unknown; resource?: Resource } & Record<string, unknown>;

export function boundMcpResult(result: unknown, limit = MAX_RESULT_BYTES): unknown {
  if (typeof result !== "object" || result === null || !Array.isArray((result as { content?: unknown }).content)) return result;
  if (jsonBytes(result) <= limit) return result;
  const { structuredContent, content: blocks, ...rest } = result as { content: Block[]; structuredContent?: unknown } & Record<string, unknown>;
  // What stays whatever is cut: every field but the payloads, and a note's room per block.
  const skeleton = { ...rest, content: blocks.map((b) => withPayload(b, "")) };
  let budget = limit - jsonBytes(skeleton) - NOTE_ROOM * blocks.length;
  if (budget < 0) return tooLarge(rest, jsonBytes(result));
  const content = blocks.map((block): Block => {
    const payload = payloadOf(block);
    if (payload === undefined) return block;
    const size = jsonBytes(payload) - 2;
    if (size <= budget) {
      budget -= size;
      return block;
    }
    if (typeof block.text === "string" || typeof block.resource?.text === "string") {
      const kept = prefixWithin(payload, budget);
      budget -= jsonBytes(kept) - 2;
      const cut = utf8Bytes(payload) - utf8Bytes(kept);
      return withPayload(block, `${kept}\n[cut by hermes-edge-proxy: ${cut} more bytes]`);
    }
    return { type: "text", text: `[${String(block.type).slice(0, 40)} content of ${utf8Bytes(payload)} bytes left out by hermes-edge-proxy: too large to relay]` };
  });
  const keepStructured = structuredContent !== undefined && jsonBytes({ structuredContent }) <= budget;
  return { ...rest, content, ...(keepStructured ? { structuredContent } : {}) };
}

/** Room for the envelope (`jsonrpc`, `id`, the outer `result`) around an inner answer in one frame. */
const ENVELOPE_ROOM = 1024;

/**
 * Why an answer other than a call's (a tool list) is too large for one frame
 * of the service's default limit, or null when it fits. It cannot be cut
 * without changing what it means, so it is refused with this message instead
 * of a frame the service could not read.
 */
export function oversizeAnswer(server: string, method: string, result: unknown, frameLimit = DEFAULT_MAX_FRAME_BYTES): string | null {
  const size = jsonBytes(result);
  const fits = frameLimit - ENVELOPE_ROOM;
  if (size <= fits) return null;
  const what = method === "tools/list" ? "its tool list is too large" : `its ${method} answer is too large`;
  const n = (x: number) => x.toLocaleString("en-US");
  return `MCP server "${server}": ${what}: ${n(size)} bytes, ${n(size - fits)} more than fits in one frame of the service's default ${n(frameLimit)}-byte limit (HERMES_MAX_FRAME_BYTES)`;
}

/** The block's text, embedded resource text, image/audio data or resource blob. */
function payloadOf(block: Block): string | undefined {
  if (typeof block.text === "string") return block.text;
  if (typeof block.data === "string") return block.data;
  if (typeof block.resource?.text === "string") return block.resource.text;
  if (typeof block.resource?.blob === "string") return block.resource.blob;
  return undefined;
}

function withPayload(block: Block, payload: string): Block {
  if (typeof block.text === "string") return { ...block, text: payload };
  if (typeof block.data === "string") return { ...block, data: payload };
  if (typeof block.resource?.text === "string") return { ...block, resource: { ...block.resource, text: payload } };
  if (typeof block.resource?.blob === "string") return { ...block, resource: { ...block.resource, blob: payload } };
  return block;
}

/** A result whose fields other than its payloads are already over the limit: only a note of it goes on. */
function tooLarge(rest: Record<string, unknown>, size: number): unknown {
  const note = { type: "text", text: `[a result of ${size} bytes left out by hermes-edge-proxy: too large to relay]` };
  return { content: [note], ...(rest.isError === true ? { isError: true } : {}) };
}

/** The longest prefix of `text` whose JSON string encoding takes at most `bytes` bytes (quotes not counted). */
function prefixWithin(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += escapedBytes(char);
    if (used > bytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** The bytes one code point takes inside a JSON string (JSON.stringify's escapes, UTF-8). */
function escapedBytes(char: string): number {
  const code = char.codePointAt(0)!;
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2;
  if (code < 0x20) return 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 6; // a lone surrogate: JSON.stringify writes \udxxx
  return code < 0x10000 ? 3 : 4;
}
