/**
 * JSON-RPC errors on the wire. One class, one static constructor per code, so a
 * handler throws `AcpError.resourceNotFound()` and the dispatcher does the rest.
 */
import { ZodError } from "zod";

export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export class AcpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "AcpError";
  }

  static parseError(detail?: string): AcpError {
    return new AcpError(-32700, "Parse error", detail ? { detail } : undefined);
  }
  static invalidRequest(detail?: string): AcpError {
    return new AcpError(-32600, "Invalid request", detail ? { detail } : undefined);
  }
  static methodNotFound(method: string): AcpError {
    return new AcpError(-32601, "Method not found", { method });
  }
  static invalidParams(data?: unknown, message = "Invalid params"): AcpError {
    return new AcpError(-32602, message, data);
  }
  static internalError(detail?: string): AcpError {
    return new AcpError(-32603, "Internal error", detail ? { detail } : undefined);
  }
  static requestCancelled(): AcpError {
    return new AcpError(-32800, "Request cancelled");
  }
  static authRequired(detail?: string): AcpError {
    return new AcpError(-32000, "Authentication required", detail ? { detail } : undefined);
  }
  /**
   * Same answer for unknown and foreign ids, so session ids do not leak. Methods
   * whose spec asks for it (`session/status`) echo the requested `sessionId` in `data`.
   */
  static resourceNotFound(sessionId?: string): AcpError {
    return new AcpError(-32002, "Resource not found", { detail: "no such session", ...(sessionId !== undefined ? { sessionId } : {}) });
  }

  toJSON(): JsonRpcErrorBody {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Maps anything thrown by a handler to the error body sent to the client. */
export function toJsonRpcError(err: unknown): JsonRpcErrorBody {
  if (err instanceof AcpError) return err.toJSON();
  if (err instanceof ZodError) return AcpError.invalidParams(err.issues).toJSON();
  if (isErrorBody(err)) return err;
  console.error("unexpected error", err);
  return AcpError.internalError(err instanceof Error ? err.message : String(err)).toJSON();
}

/** Errors cross Durable Object RPC as plain bodies; this recognises them. */
export function isErrorBody(value: unknown): value is JsonRpcErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as JsonRpcErrorBody).code === "number" &&
    typeof (value as JsonRpcErrorBody).message === "string"
  );
}
