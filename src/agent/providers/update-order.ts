/**
 * Keeps an upstream agent's last updates ahead of its answer. The SDK settles
 * a response as soon as it reads it but runs notification handlers some steps
 * later, so updates written right before the answer could be handled after it
 * and lost from the turn. This counts the `session/update` notifications read
 * from the transport and those handled, and lets the answer wait until every
 * update read before it has been handled. An update the SDK refuses (invalid
 * params) is never handled, so the wait is bounded.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

/** How long the answer waits at most for updates read before it. */
export const UPDATE_GRACE_MS = 200;

export class UpdateOrder {
  #read = 0;
  #handled = 0;
  #waiting: { count: number; resolve: () => void }[] = [];

  /** The transport as the SDK should read it: the same messages, counted on their way. */
  watch(stream: Stream): Stream {
    const counted = new TransformStream<AnyMessage, AnyMessage>({
      transform: (message, controller) => {
        if ("method" in message && message.method === "session/update" && !("id" in message)) this.#read += 1;
        controller.enqueue(message);
      },
    });
    return { writable: stream.writable, readable: stream.readable.pipeThrough(counted) };
  }

  /** The SDK handed one `session/update` to its handler. */
  handled(): void {
    this.#handled += 1;
    this.#waiting = this.#waiting.filter((w) => (w.count <= this.#handled ? (w.resolve(), false) : true));
  }

  /** Resolves once every update read so far has been handled (or after `graceMs`). */
  caughtUp(graceMs = UPDATE_GRACE_MS): Promise<void> {
    const count = this.#read;
    if (this.#handled >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#waiting.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}
