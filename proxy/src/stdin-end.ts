/**
 * What the proxy does when the editor's stdin ends. An editor that quits
 * closes it and stops the proxy; a script that pipes its requests in closes it
 * right after writing them, and wants their answers. So the proxy stops at
 * once when nothing the editor sent waits for an answer, and otherwise once
 * the last one is answered, or after `STDIN_END_GRACE_MS` (a turn goes on in
 * the service without the proxy).
 * @module
 */
import type { Logger } from "./log.js";

export const STDIN_END_GRACE_MS = 60_000;

export class StdinEnd {
  #timer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(
    private readonly log: Logger,
    /** How many of the editor's requests wait for an answer. */
    private readonly waiting: () => number,
    private readonly stop: () => void,
  ) {}

  /** stdin ended. */
  ended(): void {
    this.#ended = true;
    const waiting = this.waiting();
    if (waiting === 0) {
      this.log.info("stdin closed by the editor; shutting down");
      return this.stop();
    }
    this.log.info(`stdin closed by the editor; shutting down once the service has answered ${waiting} request(s) (at most ${STDIN_END_GRACE_MS / 1000} s)`);
    this.#timer = setTimeout(() => {
      this.log.warn(`${this.waiting()} request(s) of the editor still unanswered ${STDIN_END_GRACE_MS / 1000} s after stdin closed; shutting down`);
      this.stop();
    }, STDIN_END_GRACE_MS);
  }

  /** An answer went to the editor: after stdin ended, the last one stops the proxy. */
  answered(): void {
    if (!this.#ended || this.#timer === undefined || this.waiting() > 0) return;
    this.cancel();
    this.log.info("answered every request the editor sent; shutting down");
    this.stop();
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
