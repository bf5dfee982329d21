/**
 * The JSON-RPC 2.0 envelope: one text frame (a WebSocket message, an ndjson
 * line) decoded into a request, a notification or a response, and the frames
 * written back. ACP sends one message per frame and no batches; anything else
 * gets the error it deserves. Every frame passes through here, so the checks
 * are written out by hand rather than run through a zod schema.
 * @module
 */
import type { AnyMessage, AnyNotification, ErrorResponse, JsonRpcId } from "@agentclientprotocol/sdk";
import { invalidRequest, parseError, type RequestError } from "./errors.js";

export type { JsonRpcId };

/** The id of a request: JSON-RPC allows null only in a response to a request whose id could not be read. */
export type RequestId = Exclude<JsonRpcId, null>;

export interface IncomingRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: unknown;
}

export type IncomingNotification = AnyNotification;

/** A response as received: `result`, `error` or (from a confused peer) both; id null when it answers an unreadable request. */
export interface IncomingResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result?: unknown;
  error?: ErrorResponse;
}

export type Decoded =
  | { kind: "request"; message: IncomingRequest }
  | { kind: "notification"; message: IncomingNotification }
  | { kind: "response"; message: IncomingResponse }
  | { kind: "invalid"; id: RequestId | null; error: RequestError };

/** A frame that decoded into a message. */
export type Frame = Exclude<Decoded, { kind: "invalid" }>;

const isId = (value: unknown): value is RequestId => typeof value === "string" || Number.isSafeInteger(value);

export function decodeFrame(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: "invalid", id: null, error: parseError(err instanceof Error ? err.message : String(err)) };
  }
  if (Array.isArray(value)) return { kind: "invalid", id: null, error: invalidRequest("batches are not supported by ACP") };
  if (typeof value !== "object" || value === null) {
    return { kind: "invalid", id: null, error: invalidRequest("a JSON-RPC message must be an object") };
  }
  const obj = value as Record<string, unknown>;
  const id = isId(obj["id"]) ? obj["id"] : null;
  const problems: string[] = [];
  if (obj["jsonrpc"] !== "2.0") problems.push('jsonrpc: must be "2.0"');

  if ("method" in obj) {
    const method = obj["method"];
    if (typeof method !== "string" || method === "") problems.push("method: must be a non-empty string");
    const isRequest = "id" in obj;
    if (isRequest && id === null) problems.push("id: must be a string or an integer");
    if (problems.length > 0) return { kind: "invalid", id, error: invalidRequest(problems.join("; ")) };
    const params = "params" in obj ? { params: obj["params"] } : {};
    if (isRequest && id !== null) return { kind: "request", message: { jsonrpc: "2.0", id, method: method as string, ...params } };
    return { kind: "notification", message: { jsonrpc: "2.0", method: method as string, ...params } };
  }

  if ("result" in obj || "error" in obj) {
    const responseId = obj["id"] === null ? null : id;
    if (responseId === null && obj["id"] !== null) problems.push("id: must be a string, an integer or null");
    const error = "error" in obj ? errorBody(obj["error"]) : undefined;
    if (error === null) problems.push("error: must be an object with a numeric code and a string message");
    if (problems.length > 0) return { kind: "invalid", id, error: invalidRequest(problems.join("; ")) };
    const message: IncomingResponse = { jsonrpc: "2.0", id: responseId };
    if ("result" in obj) message.result = obj["result"];
    if (error) message.error = error;
    return { kind: "response", message };
  }

  return { kind: "invalid", id, error: invalidRequest("not a JSON-RPC request, notification or response") };
}

/** The error member of a response, reduced to its three fields; null when it is not one. */
function errorBody(value: unknown): ErrorResponse | null {
  if (typeof value !== "object" || value === null) return null;
  const { code, message } = value as Record<string, unknown>;
  if (typeof code !== "number" || !Number.isFinite(code) || typeof message !== "string") return null;
  return "data" in value ? { code, message, data: (value as { data: unknown }).data } : { code, message };
}

/** A stable map key for an id: `1` and `"1"` are different ids. */
export function idKey(id: RequestId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

export function resultFrame(id: JsonRpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result } satisfies AnyMessage);
}

export function errorFrame(id: JsonRpcId, error: ErrorResponse): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error } satisfies AnyMessage);
}

export function notificationFrame(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params } satisfies AnyMessage);
}

export function requestFrame(id: RequestId, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params } satisfies AnyMessage);
}
