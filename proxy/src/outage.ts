/**
 * The clock of an outage: since when the service is unreachable, whether
 * --give-up-after has passed (then requests are answered at once), and,
 * before the first connection ever opened, the start-up deadline.
 * @module
 */
import type { ErrorResponse } from "@hermes-edge/protocol";
import { unreachableError } from "./failures.js";
import { StartupWatch } from "./startup-watch.js";

export class Outage {
  readonly startup: StartupWatch;
  readonly #giveUpAfterMs: number;
  #since = new Date();
  #gaveUp = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(giveUpAfterMs: number, startupAnswerMs?: number) {
    this.#giveUpAfterMs = giveUpAfterMs;
    this.startup = new StartupWatch(startupAnswerMs);
  }

  /** Past --give-up-after: requests get {@link error} at once instead of waiting. */
  get gaveUp(): boolean {
    return this.#gaveUp;
  }

  /** A connection that was open is gone: the outage starts now. */
  began(): void {
    this.#since = new Date();
  }

  /** Starts over (after `authenticate`): a new outage, nothing given up. */
  restart(): void {
    this.#since = new Date();
    this.#gaveUp = false;
  }

  /** Counts --give-up-after from the start of the outage (or of the proxy). */
  arm(onGiveUp: () => void): void {
    if (this.#gaveUp || this.#timer !== undefined) return;
    const remaining = this.#giveUpAfterMs - (Date.now() - this.#since.getTime());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      onGiveUp();
    }, Math.max(0, remaining));
  }

  /** Marks the outage given up; true the first time. */
  giveUp(): boolean {
    const first = !this.#gaveUp;
    this.#gaveUp = true;
    return first;
  }

  /** A connection is open again. */
  ended(): void {
    this.#gaveUp = false;
    this.stop();
    this.startup.reached();
  }

  /** Cancels the timers (stop, logout). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.startup.answered();
  }

  error(url: string): ErrorResponse {
    return unreachableError(url, this.#since);
  }
}
