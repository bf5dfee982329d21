/**
 * SSE event ids on Streamable HTTP. An event's id is its position in its
 * stream: `N` for a frame logged under seq N (on a session's stream, the
 * update log's seq, as `_meta.hermes.seq` says), `N.k` for the k-th frame
 * after it that the log does not hold (a response, a request to the editor, an
 * unlogged update). Ids only grow along a stream, so a `Last-Event-ID` says
 * exactly what a client has: every logged frame up to seq N, and k more.
 */
import * as z from "zod";

export interface EventPosition {
  seq: number;
  after: number;
}

/** What the service hands out and nothing else: digits, optionally `.` and more digits (no signs, exponents or spaces). */
const zLastEventId = z
  .string()
  .max(32)
  .regex(/^(0|[1-9]\d{0,14})(\.[1-9]\d{0,8})?$/, "expected an event id this service sent: a seq N or N.k")
  .transform((id): EventPosition => {
    const [seq, after] = id.split(".");
    return { seq: Number(seq), after: after === undefined ? 0 : Number(after) };
  });

export type ParsedLastEventId = { ok: true; position: EventPosition | null } | { ok: false; message: string };

/** The `Last-Event-ID` header of a GET: absent (null), a position, or why it is not one. */
export function parseLastEventId(header: string | null): ParsedLastEventId {
  if (header === null) return { ok: true, position: null };
  const parsed = zLastEventId.safeParse(header);
  if (parsed.success) return { ok: true, position: parsed.data };
  return { ok: false, message: parsed.error.issues[0]?.message ?? "not an event id" };
}

export function eventId(position: EventPosition): string {
  return position.after === 0 ? String(position.seq) : `${position.seq}.${position.after}`;
}

/** Whether `a` comes before `b` in a stream. */
export function isBefore(a: EventPosition, b: EventPosition): boolean {
  return a.seq < b.seq || (a.seq === b.seq && a.after < b.after);
}
