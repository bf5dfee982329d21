/**
 * The errors the reconnect tracker answers a client's request with when the
 * service cannot: each says what happened and carries a `data.reason` a
 * program can test.
 * @module
 */
import type { ErrorResponse } from "@agentclientprotocol/sdk";
import { ErrorCode } from "./errors.js";

export function connectionLost(method: string): ErrorResponse {
  return {
    code: ErrorCode.internalError,
    message: `The connection to the hermes-edge service dropped before it answered ${method}; it may or may not have taken effect.`,
    data: { reason: "connection_lost" },
  };
}

export function reattachFailed(sessionId: string, cause: ErrorResponse): ErrorResponse {
  return {
    code: cause.code,
    message: `Could not re-attach session ${sessionId} after reconnecting: ${cause.message}`,
    data: { reason: "reattach_failed" },
  };
}

export function turnOutcomeUnknown(sessionId: string): ErrorResponse {
  return {
    code: ErrorCode.internalError,
    message: `After reconnecting, the service reports session ${sessionId} idle but did not say how this prompt ended.`,
    data: { reason: "turn_outcome_unknown" },
  };
}

export function promptLost(sessionId: string): ErrorResponse {
  return {
    code: ErrorCode.internalError,
    message:
      `The hermes-edge service lost this prompt twice: after reconnecting, session ${sessionId} is idle and ` +
      "has no record of it having run. Send it again.",
    data: { reason: "prompt_lost" },
  };
}

export function cannotReattach(): ErrorResponse {
  return {
    code: ErrorCode.internalError,
    message: "After reconnecting, the service advertises neither sessionCapabilities.resume nor loadSession, so the session cannot be re-attached.",
  };
}
