/**
 * Reading a body that may be larger than anyone should hold: a fetched page
 * (`web_fetch`) or a REST request sent without a length (chunked).
 * @module
 */

/**
 * Reads at most `limit` bytes and cancels the rest, so a huge (or endless)
 * body costs only what is kept. `truncated`: the body had more than `limit`.
 */
export async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - size;
    chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
    size += Math.min(value.byteLength, room);
    if (value.byteLength >= room) {
      truncated = value.byteLength > room || !(await isDone(reader));
      break;
    }
  }
  // Not awaited: what is kept does not wait on the sender.
  void reader.cancel().catch(() => undefined);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/** After exactly `limit` bytes, peeks once to tell "exactly full" from "more to come". */
async function isDone(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  const next = await reader.read();
  return next.done;
}
