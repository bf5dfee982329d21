/**
 * The transport's own requests to the service (the replayed `initialize`, the
 * re-attaching `session/resume`s). Their ids, `"hermes-web:N"`, never collide
 * with the SDK client's numeric ids; their answers are consumed here and never
 * reach the client. (The proxy keeps the same ledger in its ProxyRequests.)
 * @module
 */
import { idKey, type RequestId, type ServiceResponse } from "./hermes-protocol.js";

export class OwnRequests {
  #next = 1;
  readonly #waiting = new Map<string, { resolve: (r: ServiceResponse) => void; timer: ReturnType<typeof setTimeout> }>();

  /** Allocates an id and a promise for its answer, which becomes "lost" after `timeoutMs`. */
  start(timeoutMs: number): { id: RequestId; response: Promise<ServiceResponse> } {
    const id = `hermes-web:${this.#next++}`;
    const response = new Promise<ServiceResponse>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(idKey(id));
        resolve({ kind: "lost", reason: `no response within ${timeoutMs} ms` });
      }, timeoutMs);
      this.#waiting.set(idKey(id), { resolve, timer });
    });
    return { id, response };
  }

  /** True when `id` was one of ours (the answer is then consumed). */
  settle(id: RequestId, response: ServiceResponse): boolean {
    const waiting = this.#waiting.get(idKey(id));
    if (!waiting) return false;
    this.#waiting.delete(idKey(id));
    clearTimeout(waiting.timer);
    waiting.resolve(response);
    return true;
  }

  /** The socket closed: every request still waiting is lost. */
  abandon(reason: string): void {
    for (const [key, waiting] of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.resolve({ kind: "lost", reason });
      this.#waiting.delete(key);
    }
  }
}
