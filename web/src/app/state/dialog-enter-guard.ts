/**
 * Keeps the Enter that answered a dialog out of the prompt box. Closing a
 * dialog gives focus back to where the user was, usually the prompt box,
 * while Enter may still be held (the key repeats) or pressed again at once by
 * a user who confirms with a double press. Those keydowns belong to the
 * dialog: sent to the prompt box they would send its draft, insert a line or
 * complete a slash command. A burst of Enters that began in a dialog is
 * ignored until the keyboard has been quiet for {@link DIALOG_ENTER_QUIET_MS};
 * a repeat counts only for the element where its press began. Pure: it is
 * handed the keydowns.
 * @module
 */

/** How long after the last Enter of a burst begun in a dialog the next one is the user's again. */
export const DIALOG_ENTER_QUIET_MS = 500;

/** What the guard reads of a keydown (a DOM `KeyboardEvent` has it). */
export interface EnterKeydown {
  readonly key: string;
  readonly repeat: boolean;
  /** Milliseconds, as `KeyboardEvent.timeStamp`. */
  readonly timeStamp: number;
}

export class DialogEnterGuard {
  /** When the last Enter of a burst begun in a dialog went down. */
  #burstAt = Number.NEGATIVE_INFINITY;
  /** Whether the Enter held now went down in the prompt box (its repeats are then the user's). */
  #pressedHere = false;

  /** Every keydown in the page, seen before its target: notes an Enter that a dialog received. */
  sawKeydown(event: EnterKeydown, inDialog: boolean): void {
    if (event.key !== "Enter" || !inDialog) return;
    this.#burstAt = event.timeStamp;
    this.#pressedHere = false;
  }

  /** Whether the prompt box must ignore this keydown (it is an Enter still answering a dialog). */
  swallows(event: EnterKeydown): boolean {
    if (event.key !== "Enter") return false;
    if (event.repeat) {
      if (!this.#pressedHere) this.#burstAt = event.timeStamp;
      return !this.#pressedHere;
    }
    const inBurst = event.timeStamp - this.#burstAt < DIALOG_ENTER_QUIET_MS;
    if (inBurst) this.#burstAt = event.timeStamp;
    this.#pressedHere = !inBurst;
    return inBurst;
  }
}
