/**
 * The one place `web/` reaches for shared hermes-edge code: the protocol
 * package (envelope, reconnect tracker, re-attach sequence, hermes fields)
 * and the proxy's backoff schedule.
 * @module
 */
export {
  decodeFrame,
  ErrorCode,
  idKey,
  PROTOCOL_VERSION,
  reattach,
  ReconnectTracker,
  TURN_ENDED,
  withTurnEndedCapability,
  zTurnEndedParams,
  type ClientAnswer,
  type Frame,
  type RequestId,
  type ServiceResponse,
  type TurnEndedParams,
} from "@hermes-edge/protocol";
export { backoffDelay } from "../../../proxy/src/backoff.js";

/** The subprotocol prefix that carries the key on a browser WebSocket (src/http/auth.ts). */
export const TOKEN_PROTOCOL_PREFIX = "hermes-edge-token.";
export const ACP_PROTOCOL = "acp";
