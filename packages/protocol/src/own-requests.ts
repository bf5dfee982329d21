/**
 * A reconnecting client's own requests to the service (the replayed
 * `initialize` and the re-attaching `session/resume`s), for the proxy and the
 * browser client alike. Their ids are strings such as `"hermes-proxy:3"`,
 * which cannot collide with the editor's or SDK client's numeric ids and are
 * recognisable in logs; their responses are consumed, never forwarded.
 * @module
 */
import { idKey, type RequestId } from "./envelope.js";
import type { ServiceResponse } from "./reattach.js";

export class OwnRequests {
  #next = 1;
  readonly #prefix: string;
  readonly #waiting = new Map<string, { resolve: (r: ServiceResponse) => void; timer: ReturnType<typeof setTimeout> }>();

  /** @param prefix names whose requests they are in ids and logs (`hermes-proxy`, `hermes-web`). */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** Allocates an id and a promise for its response, settled with an error after `timeoutMs`. */
  start(timeoutMs: number): { id: RequestId; response: Promise<ServiceResponse> } {
    const id = `${this.#prefix}:${this.#next++}`;
    const response = new Promise<ServiceResponse>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(idKey(id));
        resolve({ kind: "lost", reason: `no response within ${timeoutMs} ms` });
      }, timeoutMs);
      this.#waiting.set(idKey(id), { resolve, timer });
    });
    return { id, response };
  }

  /** Routes a response; true when it answered one of these requests (it is then consumed). */
  settle(id: RequestId, response: ServiceResponse): boolean {
    const key = idKey(id);
    const waiting = this.#waiting.get(key);
    if (!waiting) return false;
    this.#waiting.delete(key);
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
