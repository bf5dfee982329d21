/**
 * Prompts that find their session's queue idle, while they wait for the
 * tenant's turn slot before they are stored (see `PromptRunner.enqueue` for
 * why that order). Prompts arriving during one wait share its slot. A cancel
 * that lands during the wait marks the prompt, which is then answered
 * `cancelled` without running. A slot that no prompt uses goes back.
 *
 * A prompt counts as waiting until it `leave`s, not just until the slot
 * arrives: prompts resume one by one after the wait, and one that will not
 * run must not give the slot back while another one is about to use it.
 */
import type { SessionSlots } from "../tenant/session-slots.js";
import type { RequestId } from "./session-store.js";

export class SlotArrivals {
  /** The slot being taken, shared by every prompt arriving meanwhile. */
  #taking: Promise<void> | null = null;
  /** The slot is held and the queue's first prompt may use it without asking again. */
  #ready = false;
  /** Prompts waiting, not stored yet, by connection and request id. */
  readonly #waiting = new Map<string, { cancelled: boolean; resumed: boolean }>();

  constructor(private readonly slots: Pick<SessionSlots, "holdTurn" | "releaseTurn">) {}

  /** Some prompt is waiting for the slot (or has not yet left after it came). */
  get waiting(): boolean {
    return this.#waiting.size > 0;
  }

  /**
   * Waits for the slot; resolves to whether the prompt was cancelled meanwhile.
   * A refused slot is not an error here: the queue asks again and answers the
   * prompt with the refusal.
   */
  async wait(connectionId: string, requestId: RequestId): Promise<{ cancelled: boolean }> {
    const arrival = { cancelled: false, resumed: false };
    this.#waiting.set(keyOf(connectionId, requestId), arrival);
    this.#taking ??= this.#take().finally(() => (this.#taking = null));
    await this.#taking;
    arrival.resumed = true;
    return { cancelled: arrival.cancelled };
  }

  /**
   * After `wait`: the prompt is stored to run, or it will not run (cancelled,
   * or refused by `admit`). One that will not run lets the slot go, unless the
   * queue has started with it or another prompt still waiting will use it.
   */
  leave(connectionId: string, requestId: RequestId, outcome: { runs: boolean; queueStarted: boolean }): void {
    this.#waiting.delete(keyOf(connectionId, requestId));
    if (outcome.runs || !this.#ready || outcome.queueStarted || this.#waiting.size > 0) return;
    this.#ready = false;
    void this.slots.releaseTurn();
  }

  /** `$/cancel_request` for a prompt still waiting for the slot; false when that prompt is not waiting. */
  cancel(connectionId: string, requestId: RequestId): boolean {
    const arrival = this.#waiting.get(keyOf(connectionId, requestId));
    if (!arrival || arrival.resumed) return false;
    arrival.cancelled = true;
    return true;
  }

  cancelAll(): void {
    for (const arrival of this.#waiting.values()) arrival.cancelled = true;
  }

  /** The slot taken here is held and not yet claimed. */
  get ready(): boolean {
    return this.#ready;
  }

  /** The queue starts: true (once) when it may run its first prompt in the slot taken here. */
  claim(): boolean {
    const ready = this.#ready;
    this.#ready = false;
    return ready;
  }

  /**
   * The queue gives its slot back, and with it one taken here that nobody
   * claimed (a prompt cancelled while a sub-agent's task ran the queue).
   */
  released(): void {
    this.#ready = false;
  }

  async #take(): Promise<void> {
    try {
      await this.slots.holdTurn();
      this.#ready = true;
    } catch {
      // Refused: see `wait`.
    }
  }
}

const keyOf = (connectionId: string, requestId: RequestId): string => `${connectionId}\n${JSON.stringify(requestId)}`;
