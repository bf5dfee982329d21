/**
 * The one JSON error shape of every HTTP route: `{"error": {"code", "message",
 * "data"?}}`, where `code` is a JSON-RPC code and fixes the HTTP status. Routes
 * throw `httpError(...)` (a Hono `HTTPException` carrying that body) or any
 * protocol error; `onError` (below) turns everything else into a 500 that
 * says nothing about the internals.
 * @module
 */
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorCode } from "@hermes-edge/protocol";
import { ZodError } from "zod";

const STATUS_OF_CODE = new Map<number, ContentfulStatusCode>([
  [ErrorCode.parseError, 400],
  [ErrorCode.invalidRequest, 400],
  [ErrorCode.invalidParams, 400],
  [ErrorCode.authRequired, 401],
  [ErrorCode.forbidden, 403],
  [ErrorCode.resourceNotFound, 404],
  [ErrorCode.tenantLimitReached, 429],
  [ErrorCode.tooManyFailures, 429],
  [ErrorCode.conflict, 409],
]);

export interface ErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** The HTTP status a JSON-RPC code answers with; every code not listed is a 500. */
export function statusOfCode(code: number): ContentfulStatusCode {
  return STATUS_OF_CODE.get(code) ?? 500;
}

export interface ErrorInit {
  status?: ContentfulStatusCode;
  headers?: HeadersInit;
  /** A 500 whose message is for the operator (a broken configuration variable), not an internal detail. */
  expose?: boolean;
}

/** The response for an error body; a 500 never carries the original message or data unless `expose`. */
export function errorResponse(body: ErrorBody, init: ErrorInit = {}): Response {
  const status = init.status ?? statusOfCode(body.code);
  const safe: ErrorBody = status >= 500 && !init.expose ? { code: ErrorCode.internalError, message: "Internal error" } : body;
  const error = safe.data === undefined ? { code: safe.code, message: safe.message } : safe;
  return Response.json({ error }, { status, headers: init.headers });
}

/** An `HTTPException` whose response is the JSON error shape. `status` overrides the code's own (e.g. 426). */
export function httpError(
  code: number,
  message: string,
  data?: unknown,
  init: ErrorInit = {},
): HTTPException {
  const res = errorResponse({ code, message, data }, init);
  return new HTTPException(res.status as ContentfulStatusCode, { res, message });
}

/** Errors from the protocol layer (the SDK's `RequestError`, bodies from DO RPC) by their shape. */
export function asProtocolError(err: unknown): ErrorBody | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const { code, message, data } = err as Partial<ErrorBody>;
  // JSON-RPC reserves -32768..-32000; other numeric codes (DOMException's) are not protocol errors.
  if (typeof code !== "number" || !Number.isInteger(code) || code > -32000 || code < -32768) return undefined;
  if (typeof message !== "string") return undefined;
  return data === undefined ? { code, message } : { code, message, data };
}

const CODE_OF_STATUS: Record<number, number> = {
  400: ErrorCode.invalidParams,
  401: ErrorCode.authRequired,
  403: ErrorCode.forbidden,
  404: ErrorCode.resourceNotFound,
  429: ErrorCode.tooManyFailures,
};

/** The single `app.onError`. */
export const onError: ErrorHandler = (err) => {
  if (err instanceof HTTPException) {
    if (err.res) return err.getResponse();
    // Hono's own (e.g. a malformed JSON body): keep its status, give it our shape.
    const code = CODE_OF_STATUS[err.status] ?? ErrorCode.internalError;
    if (err.status >= 500) console.error("http exception", err);
    return errorResponse({ code, message: err.message || "request failed" }, { status: err.status as ContentfulStatusCode });
  }
  if (err instanceof ZodError) return errorResponse({ code: ErrorCode.invalidParams, message: "Invalid params", data: err.issues });
  const rpc = asProtocolError(err);
  if (rpc && statusOfCode(rpc.code) < 500) return errorResponse(rpc);
  console.error("unhandled error", err);
  return errorResponse({ code: ErrorCode.internalError, message: "Internal error" });
};
