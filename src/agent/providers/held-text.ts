/**
 * Streams an upstream's text to the editor while keeping tool-call blocks out
 * of it: text before the first place a call could start (`<tool_call>` or a
 * ```json fence, in any case) passes through at once; from there on it is held
 * until the answer is complete and `parseToolCallText` has taken the calls out.
 * Other code fences stream as they come.
 */
import { parseToolCallText, type ParsedToolText } from "./tool-call-text.js";

const MARKERS = ["<tool_call>", "```json", "~~~json"];
const LONGEST_MARKER = Math.max(...MARKERS.map((m) => m.length));
/** Any marker, ASCII letters in any case (no `u` flag: no Unicode case folding). */
const MARKER = new RegExp(MARKERS.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");

export class HeldText {
  #text = "";
  /** The text after what was shown: a marker can only start here (what was shown ended before any marker's beginning). */
  #unshown = "";
  #emitted = 0;
  #holding = false;

  /**
   * Adds a chunk; returns the part that can be shown now. Only the unshown
   * text is searched, so a long answer in small chunks costs time in
   * proportion to its length, not to its square.
   */
  push(chunk: string): string {
    this.#text += chunk;
    if (this.#holding) return "";
    this.#unshown += chunk;
    // Case folding stays in ASCII (the markers are ASCII): a fold that changes a string's length (İ) would shift every index.
    MARKER.lastIndex = 0;
    const start = MARKER.exec(this.#unshown)?.index;
    if (start !== undefined) this.#holding = true;
    // Else the tail may be the beginning of a marker split across chunks.
    return this.#release(start ?? this.#unshown.length - partialMarkerLength(asciiLower(this.#unshown.slice(-LONGEST_MARKER))));
  }

  /** The answer is complete: the rest of the text to show, and the calls. */
  end(): { rest: string; parsed: ParsedToolText } {
    const parsed = parseToolCallText(this.#text);
    const shown = this.#text.slice(0, this.#emitted);
    const rest = parsed.text.startsWith(shown) ? parsed.text.slice(shown.length) : "";
    return { rest, parsed: { text: shown + rest, calls: parsed.calls } };
  }

  /** Shows the first `length` characters of the unshown text. */
  #release(length: number): string {
    const out = this.#unshown.slice(0, length);
    this.#unshown = this.#holding ? "" : this.#unshown.slice(length);
    this.#emitted += out.length;
    return out;
  }
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
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
