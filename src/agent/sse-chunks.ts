/**
 * Reads an OpenAI-compatible streaming response (server-sent events) into
 * chunk objects. A direct reader: the `openai` package's own stream costs about
 * twice as much per chunk inside workerd, which at 10,000+ tokens a second is
 * the difference between keeping up and falling behind.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";

/** An error event inside an otherwise successful stream. */
export class StreamedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamedError";
  }
}

export async function* sseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatCompletionChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // Normalise line endings, but keep a trailing "\r": its "\n" may be in the next read.
      if (buffer.includes("\r")) buffer = buffer.replace(/\r\n|\r(?!$)/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const data = dataOf(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (data === null) continue;
        if (data === "[DONE]") return await drainRest(reader);
        const parsed = JSON.parse(data) as ChatCompletionChunk & { error?: { message?: string } };
        if (parsed.error) throw new StreamedError(parsed.error.message ?? "the model API streamed an error");
        yield parsed;
      }
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

/** The joined `data:` lines of one event, or null when it has none (comments, keep-alives). */
function dataOf(event: string): string | null {
  let data: string | null = null;
  for (const line of event.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const value = line.slice(line.startsWith("data: ") ? 6 : 5);
    data = data === null ? value : `${data}\n${value}`;
  }
  return data;
}
