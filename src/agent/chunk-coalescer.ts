/**
 * Merges streamed deltas that arrive within a short window into one update, so
 * a 20,000-token answer is not 20,000 frames. The first piece of each kind goes
 * out at once (first-token latency matters most); order is always preserved.
 *
 * The window is checked on every push as well as by a timer: while a backlog
 * of deltas is being read, reads resolve back to back and a timer would not
 * fire until the end, leaving the user with nothing to read meanwhile.
 */
export type ChunkKind = "text" | "reasoning";

/** Flush after this many buffered deltas whatever the clock says (a bound on update size). */
export const MAX_BUFFERED_DELTAS = 256;

export class ChunkCoalescer {
  #kind: ChunkKind | undefined;
  #buffer = "";
  #pieces = 0;
  #since = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #started = new Set<ChunkKind>();

  constructor(
    private readonly send: (kind: ChunkKind, text: string) => void,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  push(kind: ChunkKind, text: string): void {
    if (!text) return;
    if (this.#kind !== undefined && this.#kind !== kind) this.flush();
    if (this.windowMs <= 0 || !this.#started.has(kind)) {
      this.flush();
      this.#started.add(kind);
      this.send(kind, text);
      return;
    }
    if (this.#pieces === 0) this.#since = this.now();
    this.#kind = kind;
    this.#buffer += text;
    this.#pieces += 1;
    if (this.#pieces >= MAX_BUFFERED_DELTAS || this.now() - this.#since >= this.windowMs) {
      this.flush();
      return;
    }
    this.#timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const kind = this.#kind;
    const buffer = this.#buffer;
    // Emptied before sending: a send that throws must not leave the piece to be sent again by the next flush.
    this.#kind = undefined;
    this.#buffer = "";
    this.#pieces = 0;
    if (kind !== undefined && buffer) this.send(kind, buffer);
  }
}
