/**
 * What an outgoing frame says about where it goes on Streamable HTTP: the
 * session it names, the request it answers, and its update-log seq.
 */
import { TURN_ENDED } from "@hermes-edge/protocol";

export interface FrameRoute {
  sessionId: string | undefined;
  /** JSON of the id a response answers. */
  responseTo: string | undefined;
  seq: number | undefined;
}

export function frameRoute(frame: string): FrameRoute {
  let message: unknown;
  try {
    message = JSON.parse(frame);
  } catch {
    return { sessionId: undefined, responseTo: undefined, seq: undefined };
  }
  if (typeof message !== "object" || message === null) return { sessionId: undefined, responseTo: undefined, seq: undefined };
  const m = message as { method?: unknown; id?: unknown; params?: { sessionId?: unknown; seq?: unknown; _meta?: { hermes?: { seq?: unknown } } } };
  const isResponse = m.method === undefined && (typeof m.id === "string" || typeof m.id === "number");
  const sessionId = typeof m.params?.sessionId === "string" ? m.params.sessionId : undefined;
  // A logged `_hermes/turn_ended` carries its seq in its params.
  const seq = m.method === TURN_ENDED ? m.params?.seq : m.params?._meta?.hermes?.seq;
  return {
    sessionId,
    responseTo: isResponse ? JSON.stringify(m.id) : undefined,
    seq: typeof seq === "number" ? seq : undefined,
  };
}
