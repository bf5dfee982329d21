/**
 * `sseBatches` in workerd, whose BYOB reader can wait for a minimum of bytes
 * (`readAtLeast`): between two events a read waits for 32 bytes, so that an
 * event workerd would hand over in two pieces comes in one read. These check
 * what that wait must never do: hold back an event that has arrived whole, or
 * `[DONE]` from a server that keeps the body open after it.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { sseBatches } from "../../src/agent/sse-chunks.js";

const encoder = new TextEncoder();

/** A byte stream (as a `fetch` body is) that hands over `pieces` one per pull and then stays open, never ending. */
function openBody(pieces: string[]): ReadableStream<Uint8Array> {
  const queue = pieces.map((piece) => encoder.encode(piece));
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const piece = queue.shift();
      if (piece) controller.enqueue(piece);
      // Nothing more: the pull's read stays pending, as a model's body does while it thinks.
    },
  });
}

const event = (data: object) => `data: ${JSON.stringify(data)}\n\n`;
/** A streamed chunk with `fields` over an empty one. */
const chunk = (fields: Partial<ChatCompletionChunk>): ChatCompletionChunk => ({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [], ...fields });
const content = (text: string) => chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
const finish = chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
const usage = chunk({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });

/** The next batch, or "held" when it has not come within a second (a correct read hands it over at once). */
async function nextOrHeld(batches: AsyncGenerator<ChatCompletionChunk[]>): Promise<IteratorResult<ChatCompletionChunk[]> | "held"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const held = new Promise<"held">((resolve) => (timer = setTimeout(() => resolve("held"), 1_000)));
  try {
    return await Promise.race([batches.next(), held]);
  } finally {
    clearTimeout(timer);
  }
}

describe("sseBatches' reads in workerd", () => {
  it("hands over an event that has arrived whole while the body stays open", async () => {
    const batches = sseBatches(openBody([event(content("a"))]));
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [content("a")] });
    await batches.return(undefined);
  });

  it("hands over an event that comes in pieces smaller than the minimum once it is whole", async () => {
    const whole = event(content("joined"));
    const batches = sseBatches(openBody([whole.slice(0, 10), whole.slice(10, 20), whole.slice(20)]));
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [content("joined")] });
    await batches.return(undefined);
  });

  it("ends at [DONE] after a finish_reason, though the body stays open", async () => {
    const batches = sseBatches(openBody([event(content("a")), event(finish), "data: [DONE]\n\n"]));
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [content("a")] });
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [finish] });
    expect(await nextOrHeld(batches)).toEqual({ done: true, value: undefined });
  });

  it("ends at [DONE] after the usage, though the body stays open", async () => {
    const batches = sseBatches(openBody([event(content("a")), event(usage), "data: [DONE]\n\n"]));
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [content("a")] });
    expect(await nextOrHeld(batches)).toEqual({ done: false, value: [usage] });
    expect(await nextOrHeld(batches)).toEqual({ done: true, value: undefined });
  });
});
