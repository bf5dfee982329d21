/**
 * One incoming text frame, start to finish: size check, decode, then a request
 * through the method table, a notification to its session, or an editor's
 * response back to the session object that asked.
 *
 * Requests and notifications are handled one at a time, in arrival order
 * (`inOrder`): a `session/cancel` followed by a `session/prompt` must reach the
 * session in that order, and Durable Object RPC does not promise it. Responses
 * skip the line, since a turn may be waiting on one.
 */
import {
  decodeFrame,
  ErrorCode,
  errorFrame,
  invalidParams,
  invalidRequest,
  methodNotFound,
  RequestError,
  resultFrame,
  sessionOfRequestId,
  toErrorResponse,
  type IncomingNotification,
  type IncomingRequest,
  type IncomingResponse,
} from "@hermes-edge/protocol";
import { zCancelRequest, zSessionRef } from "../acp/params.js";
import type { Connection } from "./connection.js";
import { requireLogin } from "./logout.js";
import { DEFERRED, REQUEST_METHODS } from "./methods.js";

export type InOrder = (work: () => Promise<void>) => Promise<void>;

export async function dispatchFrame(text: string, connection: Connection, maxFrameBytes: number, inOrder: InOrder): Promise<void> {
  const size = byteLength(text, maxFrameBytes);
  if (size > maxFrameBytes) {
    const error = new RequestError(ErrorCode.invalidRequest, `Frame of ${size} bytes exceeds the ${maxFrameBytes}-byte limit (HERMES_MAX_FRAME_BYTES)`, {
      limitBytes: maxFrameBytes,
      frameBytes: size,
    });
    connection.send(errorFrame(null, toErrorResponse(error)));
    return;
  }
  const decoded = decodeFrame(text);
  switch (decoded.kind) {
    case "invalid":
      connection.send(errorFrame(decoded.id, toErrorResponse(decoded.error)));
      return;
    case "request":
      return inOrder(() => handleRequest(decoded.message, connection));
    case "notification":
      return inOrder(() => handleNotification(decoded.message, connection));
    case "response":
      return handleResponse(decoded.message, connection);
  }
}

async function handleRequest(message: IncomingRequest, connection: Connection): Promise<void> {
  try {
    if (message.method !== "initialize" && !connection.state.get()?.initialized) {
      throw invalidRequest(`"${message.method}" sent before "initialize"; initialize the connection first`);
    }
    requireLogin(message.method, connection.state.get());
    const spec = REQUEST_METHODS[message.method];
    if (!spec) throw methodNotFound(message.method);
    const parsed = spec.params.safeParse(message.params ?? {});
    if (!parsed.success) throw invalidParams(parsed.error.issues);
    const result = await spec.handler(parsed.data, { connection, id: message.id });
    if (result !== DEFERRED) connection.send(resultFrame(message.id, result));
  } catch (err) {
    connection.send(errorFrame(message.id, toErrorResponse(err)));
  }
}

/** Notifications get no answer, so bad ones are dropped (and logged). */
async function handleNotification(message: IncomingNotification, connection: Connection): Promise<void> {
  if (!connection.state.get()?.initialized || connection.state.get()?.loggedOut) return;
  if (message.method === "session/cancel") {
    const parsed = zSessionRef.safeParse(message.params ?? {});
    if (parsed.success) await connection.session(parsed.data.sessionId).cancel(connection.ref());
    else console.warn("ignored malformed session/cancel", parsed.error.issues);
    return;
  }
  if (message.method === "$/cancel_request") {
    const parsed = zCancelRequest.safeParse(message.params ?? {});
    if (!parsed.success || parsed.data.requestId === null) return;
    const requestId = parsed.data.requestId;
    // The request may be a prompt queued in any attached session; each ignores ids it does not know.
    await Promise.all(connection.state.get()!.sessions.map((id) => connection.session(id).cancelRequest(connection.ref(), requestId)));
  }
}

async function handleResponse(message: IncomingResponse, connection: Connection): Promise<void> {
  const sessionId = sessionOfRequestId(message.id);
  if (message.id === null || !sessionId || !connection.state.get()?.sessions.includes(sessionId)) return;
  await connection.session(sessionId).clientResponse(connection.ref().connectionId, {
    id: message.id,
    ...(message.error ? { error: message.error } : { result: message.result }),
  });
}

/** UTF-8 length, computed only when the string could be over the limit. */
function byteLength(text: string, limit: number): number {
  if (text.length * 3 <= limit) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

/** A queue of async work run one after another; a failure does not stop the line. */
export function serialQueue(): InOrder {
  let tail: Promise<void> = Promise.resolve();
  return (work) => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}
