import { describe, expect, it } from "vitest";
import { sseBatches, StreamedError } from "../../../src/agent/sse-chunks.js";

function body(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

/** A byte stream, as a `fetch` body is, that records the size of each buffer a reader lends it. */
function byteBody(...parts: Uint8Array[]): { stream: ReadableStream<Uint8Array>; lent: number[] } {
  const queue = [...parts];
  const lent: number[] = [];
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const part = queue.shift();
      const request = controller.byobRequest;
      if (!part) {
        controller.close();
        request?.respond(0);
        return;
      }
      if (!request?.view) return controller.enqueue(part);
      const view = new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength);
      lent.push(view.byteLength);
      const n = Math.min(part.byteLength, view.byteLength);
      view.set(part.subarray(0, n));
      request.respond(n);
      if (n < part.byteLength) queue.unshift(part.subarray(n));
    },
  });
  return { stream, lent };
}

/** Every chunk, in order, whatever batches they came in. */
async function collect(stream: ReadableStream<Uint8Array>) {
  const out: unknown[] = [];
  for await (const batch of sseBatches(stream)) out.push(...batch);
  return out;
}

const event = (n: number) => `data: {"id":"c","choices":[{"index":0,"delta":{"content":"t${n}"}}]}`;

describe("sseBatches: the chunks", () => {
  it("parses events split anywhere across reads and stops at [DONE]", async () => {
    const text = `${event(1)}\n\n${event(2)}\n\ndata: [DONE]\n\n${event(3)}\n\n`;
    const parts = [text.slice(0, 7), text.slice(7, 70), text.slice(70, 71), text.slice(71)];
    const chunks = (await collect(body(...parts))) as { choices: { delta: { content: string } }[] }[];
    expect(chunks.map((c) => c.choices[0]!.delta.content)).toEqual(["t1", "t2"]);
  });

  it("reads the body to its end after [DONE], so the connection can be reused", async () => {
    let pulls = 0;
    const encoder = new TextEncoder();
    const parts = [`${event(1)}\n\ndata: [DONE]\n\n`, "", ": trailing\n\n"];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts[pulls++];
        if (part === undefined) controller.close();
        else controller.enqueue(encoder.encode(part));
      },
    });
    expect(await collect(stream)).toHaveLength(1);
    expect(pulls).toBe(4); // every part, then the end
  });

  it("cuts off a body still open 50 ms after [DONE]", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${event(1)}\n\ndata: [DONE]\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    const started = performance.now();
    expect(await collect(stream)).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(cancelled).toBe(true);
  });

  it("handles CRLF line endings, even when a CR and its LF arrive in different reads", async () => {
    const chunks = await collect(body(`${event(1)}\r`, `\n\r\n${event(2)}\r\n\r\n`));
    expect(chunks).toHaveLength(2);
  });

  it("skips comments and keep-alives and joins multi-line data", async () => {
    const chunks = await collect(body(": keep-alive\n\n", 'data: {"id":"c",\ndata: "choices":[]}\n\n'));
    expect(chunks).toEqual([{ id: "c", choices: [] }]);
  });

  it("ends cleanly when the stream closes without [DONE]", async () => {
    expect(await collect(body(`${event(1)}\n\n`))).toHaveLength(1);
  });

  it("reads a byte stream into one lent buffer, across events larger than it and characters split between reads", async () => {
    const long = "é".repeat(20_000); // 40,000 bytes of UTF-8: more than one read's buffer
    const bytes = new TextEncoder().encode(`data: {"choices":[{"index":0,"delta":{"content":"${long}"}}]}\n\n${event(2)}\n\n`);
    const split = bytes.indexOf(0xc3) + 1; // between the two bytes of the first "é": they arrive in different reads
    const { stream, lent } = byteBody(bytes.subarray(0, split), bytes.subarray(split));
    const chunks = (await collect(stream)) as { choices: { delta: { content: string } }[] }[];
    expect(chunks.map((c) => c.choices[0]!.delta.content)).toEqual([long, "t2"]);
    expect(lent.length).toBeGreaterThan(3);
    expect(new Set(lent)).toEqual(new Set([16 * 1024]));
  });

  it("throws a StreamedError for an error event", async () => {
    await expect(collect(body('data: {"error":{"message":"overloaded"}}\n\n'))).rejects.toThrow(StreamedError);
  });
});

describe("sseBatches", () => {
  const contents = (batch: unknown[]) => (batch as { choices: { delta: { content: string } }[] }[]).map((c) => c.choices[0]!.delta.content);

  it("hands over every event one read completed as one batch, in order", async () => {
    const batches: string[][] = [];
    for await (const batch of sseBatches(body(`${event(1)}\n\n${event(2)}\n\n${event(3).slice(0, 9)}`, `${event(3).slice(9)}\n\n`))) batches.push(contents(batch));
    expect(batches).toEqual([["t1", "t2"], ["t3"]]);
  });

  it("hands over the events before an error event of the same read, then throws", async () => {
    const batches: string[][] = [];
    const read = async () => {
      for await (const batch of sseBatches(body(`${event(1)}\n\n${event(2)}\n\ndata: {"error":{"message":"overloaded"}}\n\n${event(3)}\n\n`))) batches.push(contents(batch));
    };
    await expect(read()).rejects.toThrow("overloaded");
    expect(batches).toEqual([["t1", "t2"]]);
  });

  it("hands over the events before [DONE] of the same read, and none after it", async () => {
    const batches: string[][] = [];
    for await (const batch of sseBatches(body(`${event(1)}\n\ndata: [DONE]\n\n${event(2)}\n\n`))) batches.push(contents(batch));
    expect(batches).toEqual([["t1"]]);
  });
});
