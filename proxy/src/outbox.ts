/**
 * Frames from the editor that wait while the service is unreachable, bounded
 * so a long outage cannot grow memory without limit.
 * @module
 */
import type { JsonRpcId, RequestId } from "@hermes-edge/protocol";

export const DEFAULT_OUTBOX_LIMIT = 1000;

export type OutboxItem =
  | { readonly kind: "request"; readonly id: RequestId; readonly text: string }
  | { readonly kind: "response"; readonly id: JsonRpcId; readonly text: string }
  | { readonly kind: "notification"; readonly text: string };

export class Outbox {
  readonly #limit: number;
  #items: OutboxItem[] = [];

  constructor(limit: number = DEFAULT_OUTBOX_LIMIT) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#items.length;
  }

  get isFull(): boolean {
    return this.#items.length >= this.#limit;
  }

  /** Appends; false when the outbox is full (the caller answers or drops). */
  push(item: OutboxItem): boolean {
    if (this.#items.length >= this.#limit) return false;
    this.#items.push(item);
    return true;
  }

  /**
   * Puts requests that were in flight when the socket dropped back in front:
   * the editor sent them before anything still queued. May exceed the limit
   * briefly; these were already accepted once.
   */
  unshift(items: readonly OutboxItem[]): void {
    this.#items = [...items, ...this.#items];
  }

  /** Removes and returns everything, oldest first. */
  drain(): OutboxItem[] {
    const items = this.#items;
    this.#items = [];
    return items;
  }
}
