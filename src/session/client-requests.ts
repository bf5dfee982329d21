/**
 * Requests the agent sends to the editor (permission, fs, terminal) and the
 * answers it waits for. Ids embed the session id so the connection object can
 * route an answer back without keeping a table of its own.
 */
import { AcpError, type JsonRpcErrorBody } from "../acp/errors.js";
import { requestFrame } from "../acp/jsonrpc.js";

interface Pending {
  connectionId: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
  cleanup(): void;
}

/** The editor answered with a JSON-RPC error. */
export class ClientRequestError extends Error {
  constructor(readonly body: JsonRpcErrorBody) {
    super(`the editor answered ${body.code}: ${body.message}`);
    this.name = "ClientRequestError";
  }
}

const PREFIX = "hermes:";

/** The session a client-request id belongs to, or null if it is not one of ours. */
export function sessionOfRequestId(id: unknown): string | null {
  if (typeof id !== "string" || !id.startsWith(PREFIX)) return null;
  const end = id.lastIndexOf(":");
  return end > PREFIX.length ? id.slice(PREFIX.length, end) : null;
}

export class ClientRequests {
  #next = 1;
  readonly #pending = new Map<string, Pending>();

  /** @param sessionId read lazily: a new session object learns its id at `create`. */
  constructor(private readonly sessionId: () => string) {}

  /** Builds the frame to send and a promise of the editor's answer. */
  open(
    connectionId: string,
    method: string,
    params: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): { frame: string; answer: Promise<unknown> } {
    const id = `${PREFIX}${this.sessionId()}:${this.#next++}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer =
        options.timeoutMs !== undefined
          ? setTimeout(() => this.#fail(id, new Error(`the editor did not answer ${method} within ${options.timeoutMs} ms`)), options.timeoutMs)
          : undefined;
      const onAbort = () => this.#fail(id, AcpError.requestCancelled());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        connectionId,
        resolve,
        reject,
        cleanup: () => {
          if (timer !== undefined) clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
        },
      });
      if (options.signal?.aborted) onAbort(); // "abort" never fires again for a signal already aborted
    });
    return { frame: requestFrame(id, method, params), answer };
  }

  /** Settles the request an editor response answers; false if it is not pending for that connection. */
  settle(connectionId: string, response: { id: string | number; result?: unknown; error?: JsonRpcErrorBody }): boolean {
    const pending = this.#pending.get(String(response.id));
    if (!pending || pending.connectionId !== connectionId) return false;
    this.#pending.delete(String(response.id));
    pending.cleanup();
    if (response.error) pending.reject(new ClientRequestError(response.error));
    else pending.resolve(response.result ?? null);
    return true;
  }

  /** A connection went away: everything waiting on it fails now rather than at its timeout. */
  failConnection(connectionId: string): void {
    for (const [id, pending] of this.#pending) {
      if (pending.connectionId === connectionId) this.#fail(id, new Error("the editor connection closed before answering"));
    }
  }

  #fail(id: string, error: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.cleanup();
    pending.reject(error);
  }
}
