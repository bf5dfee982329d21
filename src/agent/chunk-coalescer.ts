/**
 * Merges streamed deltas that arrive within a short window into one update, so
 * a 20,000-token answer is not 20,000 frames. The first piece of each kind goes
 * out at once (first-token latency matters most); order is always preserved.
 */
export type ChunkKind = "text" | "reasoning";

export class ChunkCoalescer {
  #kind: ChunkKind | undefined;
  #buffer = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #started = new Set<ChunkKind>();

  constructor(
    private readonly send: (kind: ChunkKind, text: string) => void,
    private readonly windowMs: number,
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
    this.#kind = kind;
    this.#buffer += text;
    this.#timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#kind !== undefined && this.#buffer) this.send(this.#kind, this.#buffer);
    this.#kind = undefined;
    this.#buffer = "";
  }
}
