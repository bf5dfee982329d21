/**
 * Streams an upstream's text to the editor while keeping tool-call blocks out
 * of it: text before the first place a call could start (`<tool_call>` or a
 * ```json fence, in any case) passes through at once; from there on it is held
 * until the answer is complete and `parseToolCallText` has taken the calls out.
 * Other code fences stream as they come.
 */
import { parseToolCallText, type ParsedToolText } from "./tool-call-text.js";

const MARKERS = ["<tool_call>", "```json", "~~~json"];

export class HeldText {
  #text = "";
  #emitted = 0;
  #holding = false;

  /** Adds a chunk; returns the part that can be shown now. */
  push(chunk: string): string {
    this.#text += chunk;
    if (this.#holding) return "";
    const folded = this.#text.toLowerCase();
    const starts = MARKERS.map((m) => folded.indexOf(m, Math.max(0, this.#emitted - m.length + 1))).filter((i) => i !== -1);
    if (starts.length > 0) {
      this.#holding = true;
      return this.#release(Math.min(...starts));
    }
    // The tail may be the beginning of a marker split across chunks.
    return this.#release(this.#text.length - partialMarkerLength(folded));
  }

  /** The answer is complete: the rest of the text to show, and the calls. */
  end(): { rest: string; parsed: ParsedToolText } {
    const parsed = parseToolCallText(this.#text);
    const shown = this.#text.slice(0, this.#emitted);
    const rest = parsed.text.startsWith(shown) ? parsed.text.slice(shown.length) : "";
    return { rest, parsed: { text: shown + rest, calls: parsed.calls } };
  }

  #release(upTo: number): string {
    if (upTo <= this.#emitted) return "";
    const out = this.#text.slice(this.#emitted, upTo);
    this.#emitted = upTo;
    return out;
  }
}

function partialMarkerLength(text: string): number {
  let longest = 0;
  for (const marker of MARKERS) {
    for (let n = Math.min(marker.length - 1, text.length); n > longest; n--) {
      if (text.endsWith(marker.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}
