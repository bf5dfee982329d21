/**
 * JSON-RPC errors on the wire. There is one error class, the SDK's
 * `RequestError`; these constructors build it with the messages and `data`
 * shapes hermes-edge has always sent (`{ detail }`, `{ method }`), so clients
 * see the same bodies. `toErrorResponse` maps anything thrown to the body sent.
 * @module
 */
import { RequestError, type ErrorResponse } from "@agentclientprotocol/sdk";
import { ZodError } from "zod";

export { RequestError };
export type { ErrorResponse };

/** The codes hermes-edge sends: JSON-RPC's, ACP's (-32000, -32002, -32800) and its own (-32001, -32003 to -32005). */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** ACP `auth_required`. */
  authRequired: -32000,
  /** ACP `resource_not_found`: an unknown (or someone else's) session. */
  resourceNotFound: -32002,
  requestCancelled: -32800,
  /** hermes-edge: not allowed (a wrong admin token, or a refused browser Origin). HTTP 403. */
  forbidden: -32001,
  /** hermes-edge: a tenant limit is reached (`data: { limit, used, max, retryAfterSeconds? }`). HTTP 429. */
  tenantLimitReached: -32003,
  /** hermes-edge: too many failed authentication attempts from one address. HTTP 429. */
  tooManyFailures: -32004,
  /** hermes-edge: a concurrent change won (e.g. two writers of one project's memory). HTTP 409. */
  conflict: -32005,
} as const;

const withDetail = (detail: string | undefined) => (detail ? { detail } : undefined);

export function parseError(detail?: string): RequestError {
  return new RequestError(ErrorCode.parseError, "Parse error", withDetail(detail));
}

export function invalidRequest(detail?: string): RequestError {
  return new RequestError(ErrorCode.invalidRequest, "Invalid request", withDetail(detail));
}

export function methodNotFound(method: string): RequestError {
  return new RequestError(ErrorCode.methodNotFound, "Method not found", { method });
}

export function invalidParams(data?: unknown, message = "Invalid params"): RequestError {
  return new RequestError(ErrorCode.invalidParams, message, data);
}

export function internalError(detail?: string): RequestError {
  return new RequestError(ErrorCode.internalError, "Internal error", withDetail(detail));
}

export function requestCancelled(): RequestError {
  return new RequestError(ErrorCode.requestCancelled, "Request cancelled");
}

export function authRequired(detail?: string): RequestError {
  return new RequestError(ErrorCode.authRequired, "Authentication required", withDetail(detail));
}

/**
 * Same answer for unknown and foreign ids, so session ids do not leak. Methods
 * whose schema asks for it (`session/status`) name the id the caller sent.
 */
export function sessionNotFound(sessionId?: string): RequestError {
  const data = sessionId === undefined ? { detail: "no such session" } : { detail: "no such session", sessionId };
  return new RequestError(ErrorCode.resourceNotFound, "Resource not found", data);
}

/**
 * An error body a client-side part (the stdio proxy, the reconnect tracker) makes up itself, with
 * its sentence in `data.details` as well as in `message`: some ACP clients (Toad) show only
 * `data.reason` and `data.details` of an error, never its message.
 */
export function errorWithDetails(code: number, message: string, data: Record<string, unknown> = {}): ErrorResponse {
  return { code, message, data: { ...data, details: message } };
}

/** A body received from a peer (or across Durable Object RPC) as the error it is. */
export function fromErrorResponse(body: ErrorResponse): RequestError {
  return new RequestError(body.code, body.message, body.data);
}

/**
 * What a thrown value becomes on the wire: a `RequestError` its own body, a
 * `ZodError` -32602 with its issues, anything else a bare -32603: its message
 * may carry internals (a query's SQL and parameters), so only the log, with
 * the stack, has it.
 */
export function toErrorResponse(err: unknown): ErrorResponse {
  if (err instanceof RequestError) return bodyOf(err);
  if (err instanceof ZodError) return bodyOf(invalidParams(err.issues));
  console.error("unexpected error", err);
  return bodyOf(internalError());
}

/** The SDK's `toErrorResponse()` keeps `data: undefined`, which survives structured clone; this drops it. */
function bodyOf(err: RequestError): ErrorResponse {
  return err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
}
