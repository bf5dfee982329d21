/**
 * A concurrency limiter for sub-agents: at most `capacity` run at once, the
 * rest wait in FIFO order and never fail for lack of a slot. Pausing holds
 * new starts (running tasks go on); resuming releases them in order. Pure:
 * no Durable Objects, no timers.
 */

/** A waiting task whose signal aborted before it got a slot; it never ran. */
export class PoolAbortedError extends Error {
  constructor() {
    super("aborted while waiting for a free sub-agent slot");
    this.name = "PoolAbortedError";
  }
}

interface Waiter {
  start(): void;
}

export class SubagentPool {
  #running = 0;
  #peak = 0;
  #paused: boolean;
  readonly #waiting: Waiter[] = [];

  constructor(
    readonly capacity: number,
    options: { paused?: boolean } = {},
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`pool capacity must be a positive integer, got ${capacity}`);
    this.#paused = options.paused ?? false;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** The most tasks that ever ran at once. */
  get peak(): number {
    return this.#peak;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Runs `task` once a slot is free and spawning is not paused. If `signal`
   * aborts while the task waits, it is dropped from the queue and the promise
   * rejects with `PoolAbortedError`; once started, the task owns its signal.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#running -= 1;
      this.#pump();
    }
  }

  /** Holds new starts; tasks already running are not touched. */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#pump();
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new PoolAbortedError());
    if (!this.#paused && this.#waiting.length === 0 && this.#running < this.capacity) {
      this.#take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new PoolAbortedError());
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #take(): void {
    this.#running += 1;
    this.#peak = Math.max(this.#peak, this.#running);
  }

  #pump(): void {
    while (!this.#paused && this.#running < this.capacity && this.#waiting.length > 0) {
      this.#take();
      this.#waiting.shift()!.start();
    }
  }
}
