/**
 * The JSON-RPC 2.0 envelope as far as the proxy needs it: tell requests,
 * notifications and responses apart, and build error responses. Payloads are
 * not interpreted here; frames are forwarded as the original text.
 * @module
 */
import { z } from "zod";
import type { AnyMessage } from "@agentclientprotocol/sdk";

export const zJsonRpcId = z.union([z.string(), z.number()]);
export type JsonRpcId = z.infer<typeof zJsonRpcId>;

/** JSON-RPC and ACP error codes the proxy emits. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /** ACP `auth_required`: the token was refused. */
  authRequired: -32000,
} as const;

export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

const zError = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

const zRequest = z.object({ id: zJsonRpcId, method: z.string(), params: z.unknown().optional() });
const zNotification = z.object({ method: z.string(), params: z.unknown().optional() });
const zResponse = z.union([
  z.object({ id: zJsonRpcId.nullable(), error: zError }),
  z.object({ id: zJsonRpcId.nullable(), result: z.unknown() }),
]);

export type Frame =
  | { readonly kind: "request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown; readonly text: string }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown; readonly text: string }
  | {
      readonly kind: "response";
      readonly id: JsonRpcId | null;
      readonly result?: unknown;
      readonly error?: JsonRpcError;
      readonly text: string;
    };

export type ParseOutcome =
  | { readonly ok: true; readonly frame: Frame }
  | { readonly ok: false; readonly error: JsonRpcError; readonly id: JsonRpcId | null };

/**
 * Parses one frame's text. Distinguishes only by shape (`method` + `id`,
 * `method` alone, `result`/`error`); the peer validates the rest. Arrays are
 * refused like the ACP SDK does: ACP does not use JSON-RPC batches.
 */
export function parseFrame(text: string): ParseOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, id: null, error: { code: ErrorCode.parseError, message: `Parse error: ${detail}` } };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a batch (array); ACP does not use JSON-RPC batches" : "not a JSON object";
    return { ok: false, id: null, error: { code: ErrorCode.invalidRequest, message: `Invalid Request: ${what}` } };
  }
  const record = value as Record<string, unknown>;
  if ("method" in record) {
    if ("id" in record && record["id"] !== undefined) {
      const request = zRequest.safeParse(record);
      if (request.success) {
        const { id, method, params } = request.data;
        return { ok: true, frame: { kind: "request", id, method, params, text } };
      }
    } else {
      const notification = zNotification.safeParse(record);
      if (notification.success) {
        const { method, params } = notification.data;
        return { ok: true, frame: { kind: "notification", method, params, text } };
      }
    }
  } else {
    const response = zResponse.safeParse(record);
    if (response.success) {
      const data = response.data;
      const frame: Frame =
        "error" in data
          ? { kind: "response", id: data.id, error: data.error, text }
          : { kind: "response", id: data.id, result: data.result, text };
      return { ok: true, frame };
    }
  }
  const id = zJsonRpcId.safeParse(record["id"]);
  return {
    ok: false,
    id: id.success ? id.data : null,
    error: { code: ErrorCode.invalidRequest, message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response" },
  };
}

/** A stable map key for an id: `1` and `"1"` are different ids. */
export function idKey(id: JsonRpcId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

export function errorResponse(id: JsonRpcId | null, error: JsonRpcError): string {
  const message = { jsonrpc: "2.0", id, error } satisfies AnyMessage;
  return JSON.stringify(message);
}

export function resultResponse(id: JsonRpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

export function requestText(id: JsonRpcId, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
