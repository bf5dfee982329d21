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
 *
 * The body is read into one reused buffer where the stream allows it (see
 * `bodyReads`), and between two events a read waits for the next event's
 * first `EVENT_MIN_BYTES` (see there).
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

/**
 * What a read waits for when the last one ended between two events, until
 * the answer has finished. workerd hands a chunked body to JavaScript in
 * pieces of at most one HTTP chunk and splits the first 26 or so bytes of each
 * chunk off into a read of their own (it reads each chunk's header 32 bytes at
 * a time), so a model's answer took two reads per event; a read that waits
 * for 32 bytes takes the event whole, and a read is most of what each delta
 * costs (BENCHMARKS.md, figure 2b, session 21). It never holds back an event
 * of 32 bytes or more: OpenAI's smallest chunk with a delta is longer. What it
 * may hold back until more bytes come is smaller: a keep-alive comment, which
 * carries nothing. After the answer's finish (a `finish_reason` or the usage)
 * reads take what there is, so `[DONE]` (14 bytes) is never held back by a
 * server that keeps the body open after it.
 */
const EVENT_MIN_BYTES = 32;

/**
 * The chunks of each body read, in order, as one non-empty array. An error
 * event or `[DONE]` ends the stream after the chunks before it are handed over.
 */
export async function* sseBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatCompletionChunk[]> {
  const reads = bodyReads(body);
  const decoder = new TextDecoder();
  let lent: ArrayBufferLike = new ArrayBuffer(READ_BUFFER_BYTES);
  let buffer = "";
  let finished = false;
  try {
    for (;;) {
      const read = await reads.read(lent, buffer === "" && !finished ? EVENT_MIN_BYTES : 1);
      const value = read.done ? undefined : read.value;
      if (value) lent = value.buffer;
      // A read may hand over no bytes: nothing to decode.
      if (value?.byteLength === 0) continue;
      const piece = value === undefined ? decoder.decode() : decoder.decode(value, STREAM);
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
        finished ||= parsed.usage != null || parsed.choices?.some((choice) => choice.finish_reason != null) === true;
        batch.push(parsed);
      }
      buffer = from === 0 ? buffer : buffer.slice(from);
      if (batch.length > 0) yield batch;
      if (stop === "done") return await drainRest(reads, lent);
      if (stop) throw stop;
      if (value === undefined) return;
    }
  } finally {
    await reads.cancel().catch(() => undefined);
  }
}

/** A body's reads; a read's bytes are valid only until the next read. */
interface BodyReads {
  /**
   * The next read: into `lent` where the stream takes a lent buffer, which the
   * read's value hands back; where the stream can, of `minBytes` or more unless
   * the body ends first.
   */
  read(lent: ArrayBufferLike, minBytes: number): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(): Promise<void>;
}

/** How much one read can hand over. A streamed model answer's reads are a few hundred bytes each. */
const READ_BUFFER_BYTES = 16 * 1024;

/**
 * Reads a byte stream (a `fetch` body is one) into a buffer the caller lends
 * to each read and takes back from its value. A default reader allocates a new
 * buffer for every read, outside the JavaScript heap; at tens of thousands of
 * reads a second that memory drives the isolate's garbage collection, whose
 * cost grows with everything else the isolate holds (BENCHMARKS.md, figure 2b,
 * session 18). A stream that is not a byte stream is read with a default reader.
 *
 * `read` is the reader's own call, not wrapped in an async function: a
 * wrapper's promise and await on each of an answer's 20,000–40,000 reads cost
 * about 3 ms of CPU per 1,000 deltas (BENCHMARKS.md, figure 2b, session 20).
 * A minimum takes workerd's `readAtLeast`; a reader without it (Node's, in
 * unit tests) reads what there is.
 */
function bodyReads(body: ReadableStream<Uint8Array>): BodyReads {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    const plain = body.getReader();
    return { read: () => plain.read(), cancel: () => plain.cancel() };
  }
  const readAtLeast = (byob as Partial<Pick<ReadableStreamBYOBReader, "readAtLeast">>).readAtLeast?.bind(byob);
  return {
    read: (lent, minBytes) => (minBytes > 1 && readAtLeast ? readAtLeast(minBytes, new Uint8Array(lent)) : byob.read(new Uint8Array(lent))),
    cancel: () => byob.cancel(),
  };
}

/**
 * After `[DONE]` the body normally ends at once. Reading it to its end lets
 * the runtime reuse the connection for the next model call (cancelling it
 * costs a new TCP connection, and for HTTPS a new handshake, per call). A
 * server that keeps streaming or holds the body open is cut off.
 */
async function drainRest(reads: BodyReads, lent: ArrayBufferLike, limitMs = 50, limitBytes = 64 * 1024): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), limitMs)));
  try {
    for (let bytes = 0; bytes <= limitBytes; ) {
      const result: ReadableStreamReadResult<Uint8Array> | "timeout" = await Promise.race([reads.read(lent, 1), timeout]);
      if (result === "timeout" || result.done) return;
      lent = result.value.buffer;
      bytes += result.value.byteLength;
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
