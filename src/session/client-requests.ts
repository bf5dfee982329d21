/**
 * Requests the agent sends to the editor (permission, fs, terminal) and the
 * answers it waits for. Ids embed the session id so the connection object can
 * route an answer back without keeping a table of its own.
 */
import { clientRequestId, requestCancelled, requestFrame, type ErrorResponse } from "@hermes-edge/protocol";

interface Pending {
  /** Null while orphaned: its connection dropped and no editor has reattached yet. */
  connectionId: string | null;
  /** Only its own connection can answer it (`mcp/message` to a server that connection runs). */
  bound: boolean;
  frame: string;
  graceTimer?: ReturnType<typeof setTimeout>;
  resolve(result: unknown): void;
  reject(error: Error): void;
  cleanup(): void;
}

/** The editor answered with a JSON-RPC error. */
export class ClientRequestError extends Error {
  constructor(readonly body: ErrorResponse) {
    super(`the editor answered ${body.code}: ${body.message}`);
    this.name = "ClientRequestError";
  }
}

const MAX_WITHDRAWN_UNSEEN = 256;

export class ClientRequests {
  /**
   * Request numbers start from this instance's start time (in µs-sized steps
   * of a millisecond clock), not from 1: an instance that replaced an evicted
   * or restarted one must never reuse an id its predecessor sent, or an
   * editor's late answer to an old permission dialog would settle a new one.
   */
  #next: number;
  readonly #pending = new Map<string, Pending>();
  /**
   * Requests given up on while orphaned (cancelled, timed out, or no editor
   * came back in time): the editor that shows them was offline when they were
   * withdrawn, so the next one to attach is told (see `adopt`).
   */
  readonly #withdrawnUnseen = new Set<string>();

  /**
   * @param sessionId read lazily: a new session object learns its id at `create`.
   * @param withdraw called when the agent stops waiting (timeout, cancelled turn) for a request
   *   still with an editor, so the editor can close its dialog (`$/cancel_request`).
   */
  constructor(
    private readonly sessionId: () => string,
    private readonly withdraw: (connectionId: string, requestId: string) => void = () => undefined,
    now: () => number = Date.now,
  ) {
    this.#next = now() * 1000 + 1;
  }

  /**
   * Builds the frame to send and a promise of the editor's answer. A `bound`
   * request fails when its connection drops instead of going to the next editor
   * that attaches: another editor does not run the same MCP server, and the
   * same proxy reconnected would run the tool a second time.
   */
  open(
    connectionId: string,
    method: string,
    params: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number; bound?: boolean; id?: string } = {},
  ): { id: string; frame: string; answer: Promise<unknown> } {
    // A given id is the same question asked again after a restart: the editor's answer to either counts once.
    const id = options.id !== undefined && !this.#pending.has(options.id) ? options.id : clientRequestId(this.sessionId(), this.#next++);
    const frame = requestFrame(id, method, params);
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer =
        options.timeoutMs !== undefined
          ? setTimeout(() => this.#abandon(id, new Error(`the editor did not answer ${method} within ${options.timeoutMs} ms`)), options.timeoutMs)
          : undefined;
      const onAbort = () => this.#abandon(id, requestCancelled());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const pending: Pending = {
        connectionId,
        bound: options.bound ?? false,
        frame,
        resolve,
        reject,
        cleanup: () => {
          if (timer !== undefined) clearTimeout(timer);
          if (pending.graceTimer !== undefined) clearTimeout(pending.graceTimer);
          options.signal?.removeEventListener("abort", onAbort);
        },
      };
      this.#pending.set(id, pending);
      if (options.signal?.aborted) onAbort(); // "abort" never fires again for a signal already aborted
    });
    return { id, frame, answer };
  }

  /**
   * Settles the request an editor response answers; false if it is not pending.
   * The caller checks that the answering connection is attached to the session:
   * after a reconnect the answer arrives on a different connection than the request.
   */
  settle(response: { id: string | number; result?: unknown; error?: ErrorResponse }): boolean {
    const pending = this.#pending.get(String(response.id));
    if (!pending) return false;
    this.#pending.delete(String(response.id));
    pending.cleanup();
    if (response.error) pending.reject(new ClientRequestError(response.error));
    else pending.resolve(response.result ?? null);
    return true;
  }

  /**
   * A connection dropped: its requests wait up to `graceMs` for an editor to
   * reattach (a proxy reconnects in seconds) instead of failing at once.
   */
  orphan(connectionId: string, graceMs: number): void {
    for (const [id, pending] of this.#pending) {
      if (pending.connectionId !== connectionId) continue;
      if (pending.bound) {
        this.#fail(id, new Error("the editor connection it was sent on closed before answering"));
        continue;
      }
      pending.connectionId = null;
      pending.graceTimer = setTimeout(
        () => this.#abandon(id, new Error(`the editor connection closed and no editor reattached within ${Math.round(graceMs / 1000)} s`)),
        graceMs,
      );
    }
  }

  /**
   * An editor attached: it takes over the orphaned requests. Returns their
   * frames to send again, and the ids of those withdrawn while no editor was
   * attached, for a `$/cancel_request` each (an editor that never saw one
   * ignores it).
   */
  adopt(connectionId: string): { resend: string[]; withdrawn: string[] } {
    const resend: string[] = [];
    for (const pending of this.#pending.values()) {
      if (pending.connectionId !== null) continue;
      pending.connectionId = connectionId;
      if (pending.graceTimer !== undefined) clearTimeout(pending.graceTimer);
      pending.graceTimer = undefined;
      resend.push(pending.frame);
    }
    const withdrawn = [...this.#withdrawnUnseen];
    this.#withdrawnUnseen.clear();
    return { resend, withdrawn };
  }

  /** The session is closing: everything waiting on `connectionId` fails now rather than at its timeout. */
  failConnection(connectionId: string): void {
    for (const [id, pending] of this.#pending) {
      if (pending.connectionId === connectionId) this.#fail(id, new Error("the editor connection closed before answering"));
    }
  }

  /** Stops waiting on a request an editor may still be showing, and tells that editor, now or once one attaches. */
  #abandon(id: string, error: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#fail(id, error);
    if (pending.connectionId) return this.withdraw(pending.connectionId, id);
    this.#withdrawnUnseen.add(id);
    // Kept in memory only, and bounded: an editor that stays away long has closed its dialogs anyway.
    if (this.#withdrawnUnseen.size > MAX_WITHDRAWN_UNSEEN) this.#withdrawnUnseen.delete(this.#withdrawnUnseen.values().next().value!);
  }

  #fail(id: string, error: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.cleanup();
    pending.reject(error);
  }
}
