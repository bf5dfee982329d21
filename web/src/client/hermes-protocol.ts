/**
 * The one place `web/` reaches for shared hermes-edge code: the protocol
 * package (envelope, reconnect tracker, re-attach sequence, the transport's
 * own requests, the backoff schedule, hermes fields).
 * @module
 */
export {
  attributeOversize,
  backoffDelay,
  decodeFrame,
  ErrorCode,
  formatSize,
  frameLimitMessage,
  idKey,
  OversizeLedger,
  OwnRequests,
  PROTOCOL_VERSION,
  reattach,
  ReconnectTracker,
  ServiceRequests,
  TURN_ENDED,
  withTurnEndedCapability,
  zTurnEndedParams,
  type ClientAnswer,
  type Frame,
  type RequestId,
  type ServiceResponse,
  type TurnEndedParams,
} from "@hermes-edge/protocol";

/** The subprotocol prefix that carries the key on a browser WebSocket (src/http/auth.ts). */
export const TOKEN_PROTOCOL_PREFIX = "hermes-edge-token.";
export const ACP_PROTOCOL = "acp";
