/**
 * The service's requests to the client (permission, fs, terminal, elicitation)
 * as a reconnecting client (the proxy, the browser's transport) sees them. After a re-attach the service sends its
 * unanswered requests again, often just after the client's answer went out
 * (the service re-sends as it answers `session/resume`, before it reads the
 * answer). A copy is never handed to the client a second time, or a dialog
 * would reappear and a file be written twice; a copy of one already answered
 * gets that answer again, in case it was lost with the old link (the service
 * ignores an answer to a request it no longer waits on). A request the service
 * withdraws (`$/cancel_request`) is never sent again, so it is forgotten then:
 * an editor that never answers does not make the table grow. Pure: time comes in.
 * @module
 */
import { idKey, type IncomingNotification, type RequestId } from "./envelope.js";

/**
 * How long an answer is remembered after it went out on a link that stayed
 * open: a copy the service sent before it read the answer arrives well within it.
 */
export const ANSWER_MEMORY_MS = 10_000;

interface Entry {
  answer?: string;
  /** When the answer last went out on an open link. */
  sentAt?: number;
}

/** What to do with a request from the service: hand it on, drop it, or drop it and send the client's answer again. */
export type Arrival = { readonly kind: "new" } | { readonly kind: "copy" } | { readonly kind: "answer-again"; readonly text: string };

export class ServiceRequests {
  readonly #entries = new Map<string, Entry>();

  /** A request arrived. `open`: the link is re-attached, so answers that went out long enough ago can be forgotten. */
  arrived(id: RequestId, now: number, open: boolean): Arrival {
    const key = idKey(id);
    if (open) this.#forgetOld(now);
    const entry = this.#entries.get(key);
    if (!entry) {
      this.#entries.set(key, {});
      return { kind: "new" };
    }
    return entry.sentAt !== undefined && entry.answer !== undefined ? { kind: "answer-again", text: entry.answer } : { kind: "copy" };
  }

  /** The client answered `id`; false if it is no request of the service's that was handed on. */
  answered(id: RequestId, text: string): boolean {
    const entry = this.#entries.get(idKey(id));
    if (!entry) return false;
    entry.answer = text;
    return true;
  }

  /** The answer to `id` went out on an open link. */
  sent(id: RequestId, now: number): void {
    const entry = this.#entries.get(idKey(id));
    if (entry) entry.sentAt = now;
  }

  /** A notification from the service: `$/cancel_request` withdraws a request, which no copy will follow. */
  notified(notification: IncomingNotification): void {
    if (notification.method !== "$/cancel_request") return;
    const id = (notification.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === "string" || typeof id === "number") this.#entries.delete(idKey(id));
  }

  /** A new link is open: answers that went out on an earlier one are remembered afresh, since the service's copies come now. */
  reopened(now: number): void {
    for (const entry of this.#entries.values()) if (entry.sentAt !== undefined) entry.sentAt = now;
  }

  #forgetOld(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.sentAt !== undefined && now - entry.sentAt >= ANSWER_MEMORY_MS) this.#entries.delete(key);
  }
}
