/**
 * The service's requests to the client (permission, `fs/*`, `terminal/*`)
 * forwarded and not yet answered. After a reconnect the service sends its
 * unanswered requests again, under the same ids, to the connection that
 * re-attached: the client already has them, and a second copy would open a
 * second permission dialog or create a terminal twice.
 * @module
 */
import { idKey, type RequestId } from "./envelope.js";

export class ServiceRequests {
  readonly #waiting = new Set<string>();

  /** A request from the service; false when the client already has it and has not answered yet. */
  arrived(id: RequestId): boolean {
    const key = idKey(id);
    if (this.#waiting.has(key)) return false;
    this.#waiting.add(key);
    return true;
  }

  /**
   * The client's answer went out to the service. Called when it is sent, not
   * when the client writes it: an answer queued during a reconnect still
   * stands for the request, so a re-sent copy meanwhile is a repeat.
   */
  answered(id: RequestId): void {
    this.#waiting.delete(idKey(id));
  }
}
