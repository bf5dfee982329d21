/**
 * The errors the reconnect tracker answers a client's request with when the
 * service cannot: each says what happened (in `message` and `data.details`)
 * and carries a `data.reason` a program can test.
 * @module
 */
import type { ErrorResponse } from "@agentclientprotocol/sdk";
import { ErrorCode, errorWithDetails } from "./errors.js";

export function connectionLost(method: string): ErrorResponse {
  return errorWithDetails(
    ErrorCode.internalError,
    `The connection to the hermes-edge service dropped before it answered ${method}; it may or may not have taken effect.`,
    { reason: "connection_lost" },
  );
}

export function reattachFailed(sessionId: string, cause: ErrorResponse): ErrorResponse {
  return errorWithDetails(cause.code, `Could not re-attach session ${sessionId} after reconnecting: ${cause.message}`, { reason: "reattach_failed" });
}

export function turnOutcomeUnknown(sessionId: string): ErrorResponse {
  return errorWithDetails(
    ErrorCode.internalError,
    `After reconnecting, the service reports session ${sessionId} idle but did not say how this prompt ended.`,
    { reason: "turn_outcome_unknown" },
  );
}

export function promptLost(sessionId: string): ErrorResponse {
  return errorWithDetails(
    ErrorCode.internalError,
    `The hermes-edge service lost this prompt twice: after reconnecting, session ${sessionId} is idle and ` +
      "has no record of it having run. Send it again.",
    { reason: "prompt_lost" },
  );
}

export function cannotReattach(): ErrorResponse {
  return errorWithDetails(
    ErrorCode.internalError,
    "After reconnecting, the service advertises neither sessionCapabilities.resume nor loadSession, so the session cannot be re-attached.",
  );
}
