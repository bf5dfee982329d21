/**
 * The deadline of one MCP tool call: `idleMs` after it was sent or after the
 * server's last `notifications/progress`, and never later than `totalMs` after
 * it was sent. Its signal aborts with an Error that says which struck.
 */
export class ProgressDeadline {
  readonly #controller = new AbortController();
  readonly #started = Date.now();
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #total: ReturnType<typeof setTimeout>;

  constructor(
    private readonly what: string,
    private readonly timeouts: { idleMs: number; totalMs: number },
  ) {
    this.#total = setTimeout(() => this.#strike(`${what} was still running after ${seconds(timeouts.totalMs)}, the most one call may take`), timeouts.totalMs);
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
    this.#idle = setTimeout(() => this.#strike(`no answer or progress to ${this.what} within ${seconds(this.timeouts.idleMs)}`), Math.min(this.timeouts.idleMs, Math.max(left, 0)));
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

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${(ms / 1000).toLocaleString("en-US")} s` : `${(ms / 1000).toFixed(1)} s`;
}
