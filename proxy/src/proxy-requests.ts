/**
 * The proxy's own requests to the service (the replayed `initialize` and the
 * re-attaching `session/resume`s). Their ids are strings such as
 * `"hermes-proxy:3"`, which cannot collide with the editor's numeric ids and
 * are recognisable in logs; their responses are consumed, never forwarded.
 * @module
 */
import { idKey, type RequestId, type ServiceResponse } from "@hermes-edge/protocol";

export class ProxyRequests {
  #next = 1;
  readonly #waiting = new Map<string, { resolve: (r: ServiceResponse) => void; timer: NodeJS.Timeout }>();

  /** Allocates an id and a promise for its response, settled with an error after `timeoutMs`. */
  start(timeoutMs: number): { id: RequestId; response: Promise<ServiceResponse> } {
    const id = `hermes-proxy:${this.#next++}`;
    const response = new Promise<ServiceResponse>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(idKey(id));
        resolve({ kind: "lost", reason: `no response within ${timeoutMs} ms` });
      }, timeoutMs);
      this.#waiting.set(idKey(id), { resolve, timer });
    });
    return { id, response };
  }

  /** Routes a response; true when it answered one of the proxy's requests. */
  settle(id: RequestId, response: ServiceResponse): boolean {
    const key = idKey(id);
    const waiting = this.#waiting.get(key);
    if (!waiting) return false;
    this.#waiting.delete(key);
    clearTimeout(waiting.timer);
    waiting.resolve(response);
    return true;
  }

  /** The socket closed: every outstanding proxy request fails. */
  abandon(reason: string): void {
    for (const [key, waiting] of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.resolve({ kind: "lost", reason });
      this.#waiting.delete(key);
    }
  }
}
