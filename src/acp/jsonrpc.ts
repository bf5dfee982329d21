/**
 * Decoding one WebSocket text frame into one JSON-RPC message. ACP sends one
 * message per frame and no batches; anything else gets the error it deserves.
 */
import { z } from "zod";
import { AcpError, type JsonRpcErrorBody } from "./errors.js";

export type JsonRpcId = string | number;

const zId = z.union([z.string(), z.number().int()]);

const zRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: zId,
  method: z.string().min(1),
  params: z.unknown().optional(),
});
const zNotification = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
// A response may carry id null (an error about a request whose id could not be read); it is never answered.
const zResponse = z.object({
  jsonrpc: z.literal("2.0"),
  id: zId.nullable(),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

export type IncomingRequest = z.infer<typeof zRequest>;
export type IncomingNotification = z.infer<typeof zNotification>;
export type IncomingResponse = z.infer<typeof zResponse>;

export type Decoded =
  | { kind: "request"; message: IncomingRequest }
  | { kind: "notification"; message: IncomingNotification }
  | { kind: "response"; message: IncomingResponse }
  | { kind: "invalid"; id: JsonRpcId | null; error: AcpError };

export function decodeFrame(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: "invalid", id: null, error: AcpError.parseError((err as Error).message) };
  }
  if (Array.isArray(value)) {
    return { kind: "invalid", id: null, error: AcpError.invalidRequest("batches are not supported by ACP") };
  }
  if (typeof value !== "object" || value === null) {
    return { kind: "invalid", id: null, error: AcpError.invalidRequest("a JSON-RPC message must be an object") };
  }
  const obj = value as Record<string, unknown>;
  const id = zId.safeParse(obj.id).success ? (obj.id as JsonRpcId) : null;
  if ("method" in obj) {
    const parsed = "id" in obj ? zRequest.safeParse(obj) : zNotification.safeParse(obj);
    if (!parsed.success) return { kind: "invalid", id, error: AcpError.invalidRequest(describe(parsed.error)) };
    return "id" in obj
      ? { kind: "request", message: parsed.data as IncomingRequest }
      : { kind: "notification", message: parsed.data as IncomingNotification };
  }
  if ("result" in obj || "error" in obj) {
    const parsed = zResponse.safeParse(obj);
    if (parsed.success) return { kind: "response", message: parsed.data };
    return { kind: "invalid", id, error: AcpError.invalidRequest(describe(parsed.error)) };
  }
  return { kind: "invalid", id, error: AcpError.invalidRequest("not a JSON-RPC request, notification or response") };
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

export function resultFrame(id: JsonRpcId | null, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

export function errorFrame(id: JsonRpcId | null, error: JsonRpcErrorBody): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

export function notificationFrame(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

export function requestFrame(id: JsonRpcId, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
