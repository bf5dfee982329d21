/**
 * The deadline of one MCP tool call: `idleMs` after it was sent or after the
 * server's last `notifications/progress`, and never later than `totalMs` after
 * it was sent. Its signal aborts with an Error that says which struck.
 */
import { mcpTimeoutReason } from "@hermes-edge/protocol";

export class ProgressDeadline {
  readonly #controller = new AbortController();
  readonly #started = Date.now();
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #total: ReturnType<typeof setTimeout>;

  constructor(
    private readonly what: string,
    private readonly timeouts: { idleMs: number; totalMs: number },
  ) {
    this.#total = setTimeout(() => this.#strike(mcpTimeoutReason(what, timeouts, "total")), timeouts.totalMs);
    this.progressed();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The server reported progress: the idle timeout starts again. */
  progressed(): void {
    if (this.#controller.signal.aborted) return;
    clearTimeout(this.#idle);
    const left = this.timeouts.totalMs - (Date.now() - this.#started);
    this.#idle = setTimeout(() => this.#strike(mcpTimeoutReason(this.what, this.timeouts, "idle")), Math.min(this.timeouts.idleMs, Math.max(left, 0)));
  }

  clear(): void {
    clearTimeout(this.#idle);
    clearTimeout(this.#total);
  }

  #strike(why: string): void {
    this.clear();
    this.#controller.abort(new Error(why));
  }
}
