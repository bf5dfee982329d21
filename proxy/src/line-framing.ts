/**
 * Newline-delimited JSON framing for the editor side (stdio), with a maximum
 * message size so a runaway writer cannot make the proxy buffer without bound.
 * @module
 */

/** Same limit as the ACP SDK's `DEFAULT_MAX_MESSAGE_BYTES` (32 MiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

const LF = 0x0a;

export type DecodedLine =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "too_large"; readonly maxBytes: number };

/**
 * Splits a byte stream into lines. A line longer than `maxBytes` is reported
 * once as `too_large` and then skipped up to its newline, so one bad message
 * does not take the stream down and is never half-parsed.
 */
export class LineDecoder {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #length = 0;
  #discarding = false;

  constructor(maxBytes: number = DEFAULT_MAX_MESSAGE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new RangeError("maxBytes must be a positive integer");
    }
    this.#maxBytes = maxBytes;
  }

  /** Feeds a chunk; returns every line completed by it, in order. */
  push(chunk: Buffer): DecodedLine[] {
    const out: DecodedLine[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#append(chunk.subarray(start, end), out);
      if (newline === -1) break;
      this.#finishLine(out);
      start = newline + 1;
    }
    return out;
  }

  /** Flushes a final line that had no trailing newline (stdin ended). */
  end(): DecodedLine[] {
    const out: DecodedLine[] = [];
    this.#finishLine(out);
    return out;
  }

  #append(bytes: Buffer, out: DecodedLine[]): void {
    if (this.#discarding || bytes.length === 0) return;
    if (this.#length + bytes.length > this.#maxBytes) {
      this.#parts = [];
      this.#length = 0;
      this.#discarding = true;
      out.push({ kind: "too_large", maxBytes: this.#maxBytes });
      return;
    }
    this.#parts.push(bytes);
    this.#length += bytes.length;
  }

  #finishLine(out: DecodedLine[]): void {
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    const text = Buffer.concat(this.#parts, this.#length).toString("utf8");
    this.#parts = [];
    this.#length = 0;
    // CRLF writers and blank keep-alive lines are tolerated, not errors.
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (trimmed.trim() !== "") out.push({ kind: "line", text: trimmed });
  }
}

/**
 * Encodes one JSON text as one ndjson line. JSON may legally contain raw
 * newlines only as whitespace between tokens; if a peer pretty-printed a frame,
 * it is re-serialized (same value) so it still occupies exactly one line.
 */
export function encodeLine(jsonText: string): string {
  if (!jsonText.includes("\n") && !jsonText.includes("\r")) return jsonText + "\n";
  return JSON.stringify(JSON.parse(jsonText)) + "\n";
}
