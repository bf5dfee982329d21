/**
 * Ordered delivery of frames to one connection. Frames pushed while a delivery
 * is in flight are batched into the next one, so a fast stream costs one RPC
 * per batch, not per frame, and order is never lost.
 */
/** Bounds one RPC's size; a 10,000-update replay goes out in several batches. */
const MAX_BATCH_FRAMES = 1_000;

export type Deliver = (frames: string[]) => Promise<boolean>;

export class Outbox {
  #queue: string[] = [];
  #flushing: Promise<void> | null = null;
  #gone = false;

  /** @param deliver returns false when the connection no longer has a socket. */
  constructor(
    private readonly deliver: Deliver,
    private readonly onGone: () => void,
  ) {}

  get gone(): boolean {
    return this.#gone;
  }

  push(frame: string): void {
    if (this.#gone) return;
    this.#queue.push(frame);
    this.#flushing ??= this.#run();
  }

  /** Resolves once everything pushed so far has been handed over (or dropped). */
  async drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#gone) {
        const batch = this.#queue.splice(0, MAX_BATCH_FRAMES);
        // The executor turns a synchronous throw (e.g. a bad DO id) into a rejection, so
        // it counts as gone too and this run always yields before `finally` clears `#flushing`.
        const ok = await new Promise<boolean>((resolve) => resolve(this.deliver(batch))).catch(() => false);
        if (!ok) {
          this.#gone = true;
          this.#queue = [];
          this.onGone();
        }
      }
    } finally {
      this.#flushing = null;
    }
  }
}
