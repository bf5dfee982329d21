/**
 * Reads an OpenAI-compatible streaming response (server-sent events) into
 * chunk objects. A direct reader: the `openai` package's own stream costs about
 * twice as much per chunk inside workerd, which at 10,000+ tokens a second is
 * the difference between keeping up and falling behind.
 *
 * `sseBatches` hands over every event one body read completed as one array:
 * a generator step per read, not per event, since each step of an async
 * generator (and of every generator stacked on it) costs several microtask
 * turns, which is a good share of a delta's cost at 20,000 deltas a second.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";

/** An error event inside an otherwise successful stream. */
export class StreamedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamedError";
  }
}

type Parsed = ChatCompletionChunk & { error?: { message?: string } };

const STREAM = { stream: true } as const;

/** Every chunk, one at a time (as `sseBatches` reads them). */
export async function* sseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatCompletionChunk> {
  for await (const batch of sseBatches(body)) yield* batch;
}

/**
 * The chunks of each body read, in order, as one non-empty array. An error
 * event or `[DONE]` ends the stream after the chunks before it are handed over.
 */
export async function* sseBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatCompletionChunk[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // workerd hands over an empty read after each HTTP chunk of a streamed body (half of all reads): nothing to do.
      if (!done && value.byteLength === 0) continue;
      const piece = done ? decoder.decode() : decoder.decode(value, STREAM);
      // Normalise line endings, but keep a trailing "\r": its "\n" may be in the next read.
      buffer = piece.includes("\r") || buffer.endsWith("\r") ? (buffer + piece).replace(/\r\n|\r(?!$)/g, "\n") : buffer + piece;
      const batch: ChatCompletionChunk[] = [];
      let from = 0;
      let end: number;
      let stop: "done" | StreamedError | undefined;
      while ((end = buffer.indexOf("\n\n", from)) !== -1) {
        const data = dataOf(buffer, from, end);
        from = end + 2;
        if (data === null) continue;
        if (data === "[DONE]") {
          stop = "done";
          break;
        }
        const parsed = JSON.parse(data) as Parsed;
        if (parsed.error) {
          stop = new StreamedError(parsed.error.message ?? "the model API streamed an error");
          break;
        }
        batch.push(parsed);
      }
      buffer = from === 0 ? buffer : buffer.slice(from);
      if (batch.length > 0) yield batch;
      if (stop === "done") return await drainRest(reader);
      if (stop) throw stop;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * After `[DONE]` the body normally ends at once. Reading it to its end lets
 * the runtime reuse the connection for the next model call (cancelling it
 * costs a new TCP connection, and for HTTPS a new handshake, per call). A
 * server that keeps streaming or holds the body open is cut off.
 */
async function drainRest(reader: ReadableStreamDefaultReader<Uint8Array>, limitMs = 50, limitBytes = 64 * 1024): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), limitMs)));
  try {
    for (let bytes = 0; bytes <= limitBytes; ) {
      const read = await Promise.race([reader.read(), timeout]);
      if (read === "timeout" || read.done) return;
      bytes += read.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The joined `data:` lines of the event in `text[from, end)`, or null when it has none (comments, keep-alives). */
function dataOf(text: string, from: number, end: number): string | null {
  // The usual event is one `data: …` line: take it without splitting.
  if (text.indexOf("\n", from) === end && text.startsWith("data: ", from)) return text.slice(from + 6, end);
  let data: string | null = null;
  for (const line of text.slice(from, end).split("\n")) {
    if (!line.startsWith("data:")) continue;
    const value = line.slice(line.startsWith("data: ") ? 6 : 5);
    data = data === null ? value : `${data}\n${value}`;
  }
  return data;
}
