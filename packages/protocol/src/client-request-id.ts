/**
 * The ids of the requests a session sends to the client (permission, fs,
 * terminal): `hermes:<sessionId>:<n>`. The session id inside lets the
 * connection route the client's answer back without a table of its own.
 * @module
 */
import * as z from "zod";

const PREFIX = "hermes:";

export const zClientRequestId = z.string().regex(/^hermes:.+:\d+$/, "a hermes-edge client-request id is hermes:<sessionId>:<n>");

export function clientRequestId(sessionId: string, n: number): string {
  return `${PREFIX}${sessionId}:${n}`;
}

/** The session a client-request id belongs to, or null if it is not one of ours. Runs on every response, so no zod. */
export function sessionOfRequestId(id: unknown): string | null {
  if (typeof id !== "string" || !id.startsWith(PREFIX)) return null;
  const end = id.lastIndexOf(":");
  return end > PREFIX.length ? id.slice(PREFIX.length, end) : null;
}
