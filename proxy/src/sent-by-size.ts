/**
 * The large frames the proxy sent on its own behalf lately, by UTF-8 size:
 * the service refuses a frame over its limit without reading it, and its
 * error (id null) names only the size, so the size is how the frame is found.
 * @module
 */
import { utf8Bytes } from "@hermes-edge/protocol";

/** Frames under this size cannot be over any sensible limit; they are not measured. */
const MEASURE_FROM_CHARS = 1024;
/** How many large frames are remembered: the service refuses one at once, so only the latest matter. */
const LARGE_MEMORY = 64;

export class SentBySize<T extends { text: string }> {
  readonly #sent: { bytes: number; item: T }[] = [];

  sent(item: T): void {
    if (item.text.length < MEASURE_FROM_CHARS) return;
    this.#sent.push({ bytes: utf8Bytes(item.text), item });
    if (this.#sent.length > LARGE_MEMORY) this.#sent.shift();
  }

  /** The oldest remembered frame of exactly `bytes`, forgotten. */
  take(bytes: number): T | undefined {
    const index = this.#sent.findIndex((s) => s.bytes === bytes);
    return index === -1 ? undefined : this.#sent.splice(index, 1)[0]!.item;
  }
}

