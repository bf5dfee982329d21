/**
 * Which inner request a stdio server's notification travels with. The binding
 * (`mcp/message`, MCP 2026-07-28) sends a notification only for an active
 * inner request and requires its `requestId`; over stdio a server does not say
 * which request a notification belongs to, so it goes with the newest request
 * the server is answering now. One sent while the server answers nothing
 * (a `tools/list_changed` when idle, say) waits for the next request to that
 * server rather than carry the id of one that has ended. Pure: it returns what
 * to send and never does I/O.
 * @module
 */
import type { Notification } from "@modelcontextprotocol/sdk/types.js";

/** A server keeps at most this many notifications waiting: `notifications/message` goes first, then the oldest, `list_changed` last. */
export const MAX_HELD_NOTIFICATIONS = 32;

const LOG_MESSAGE = "notifications/message";
const isListChanged = (method: string): boolean => method.endsWith("/list_changed");

/** What goes out as one `mcp/message` notification's params. */
export interface ScopedNotification {
  serverId: string;
  requestId: string;
  method: string;
  params?: Record<string, unknown>;
}

export class McpNotificationScope {
  /** Inner requests each server is answering now, oldest first. */
  readonly #active = new Map<string, string[]>();
  readonly #held = new Map<string, Notification[]>();

  /** A request to the server started; returns the notifications that waited for one, now scoped to it. */
  started(serverId: string, requestId: string): ScopedNotification[] {
    this.#active.set(serverId, [...(this.#active.get(serverId) ?? []), requestId]);
    const held = this.#held.get(serverId) ?? [];
    this.#held.delete(serverId);
    return held.map((n) => scoped(serverId, requestId, n));
  }

  ended(serverId: string, requestId: string): void {
    const rest = (this.#active.get(serverId) ?? []).filter((id) => id !== requestId);
    if (rest.length > 0) this.#active.set(serverId, rest);
    else this.#active.delete(serverId);
  }

  /** A notification from the server: scoped to its newest active request, or null when it must wait for one. */
  notified(serverId: string, notification: Notification): ScopedNotification | null {
    const requestId = this.#active.get(serverId)?.at(-1);
    if (requestId !== undefined) return scoped(serverId, requestId, notification);
    const held = (this.#held.get(serverId) ?? []).filter((h) => !(isListChanged(h.method) && h.method === notification.method));
    held.push(notification);
    if (held.length > MAX_HELD_NOTIFICATIONS) held.splice(toDrop(held), 1);
    this.#held.set(serverId, held);
    return null;
  }

  /** The server stopped: nothing of it waits any more. */
  forget(serverId: string): void {
    this.#active.delete(serverId);
    this.#held.delete(serverId);
  }
}

/** Which waiting notification makes room for a newer one: the oldest log message, else the oldest that is not a list_changed. */
function toDrop(held: readonly Notification[]): number {
  const log = held.findIndex((n) => n.method === LOG_MESSAGE);
  if (log >= 0) return log;
  return Math.max(0, held.findIndex((n) => !isListChanged(n.method)));
}

function scoped(serverId: string, requestId: string, n: Notification): ScopedNotification {
  return { serverId, requestId, method: n.method, ...(n.params ? { params: n.params as Record<string, unknown> } : {}) };
}
