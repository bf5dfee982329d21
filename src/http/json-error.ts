/**
 * The one JSON error shape of the REST API, `{"error": {"code", "message", "data"?}}`,
 * carried by a Hono `HTTPException` so `app.onError` sends it as it is.
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";

export function jsonError(status: ContentfulStatusCode, code: string, message: string, data?: unknown): HTTPException {
  const body = { error: { code, message, ...(data !== undefined ? { data } : {}) } };
  return new HTTPException(status, { message, res: Response.json(body, { status }) });
}

/** A 400 for a query or body that failed its schema, with zod's issues as `data`. */
export function invalidRequest(what: "query" | "body", error: ZodError): HTTPException {
  const issues = error.issues.map((i) => ({ path: i.path, message: i.message }));
  return jsonError(400, "invalid_request", `invalid ${what}: ${issues.map((i) => `${i.path.join(".") || what}: ${i.message}`).join("; ")}`, { issues });
}
