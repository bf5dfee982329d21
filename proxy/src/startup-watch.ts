/**
 * Until the proxy has reached the service once, an editor must not wait the
 * whole --give-up-after for its `initialize`: it would just spin. This keeps
 * the deadline and the last failure so the bridge can answer within seconds
 * with the URL and the cause. Later outages are not its business.
 * @module
 */
import type { ConnectFailure } from "./connect.js";
import { isDefinitive } from "./failures.js";

/** How long an editor request waits for the first connection before it is answered with the cause. */
export const STARTUP_ANSWER_MS = 8_000;

export class StartupWatch {
  readonly #deadlineMs: number;
  #reached = false;
  #timer: NodeJS.Timeout | undefined;
  #since = 0;
  #lastFailure: ConnectFailure | undefined;

  constructor(deadlineMs: number = STARTUP_ANSWER_MS) {
    this.#deadlineMs = deadlineMs;
  }

  /** True until the first connection opened. */
  get waiting(): boolean {
    return !this.#reached;
  }

  get lastFailure(): ConnectFailure | undefined {
    return this.#lastFailure;
  }

  /** How long the current deadline has been running. */
  get waitedMs(): number {
    return Date.now() - this.#since;
  }

  /** An editor request now waits for the first connection: start the deadline unless it runs. */
  requestWaiting(onDeadline: () => void): void {
    if (this.#reached || this.#timer !== undefined) return;
    this.#since = Date.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      onDeadline();
    }, this.#deadlineMs);
  }

  /** Records a failed attempt; true when it should be reported to the waiting editor now. */
  failed(failure: ConnectFailure): boolean {
    this.#lastFailure = failure;
    return !this.#reached && this.#timer !== undefined && isDefinitive(failure);
  }

  /** The waiting requests were answered; the next one starts a new deadline. */
  answered(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  reached(): void {
    this.#reached = true;
    this.answered();
  }
}
