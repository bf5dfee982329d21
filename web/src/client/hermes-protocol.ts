/**
 * The one place `web/` reaches for the shared hermes-edge protocol code: the
 * lossless-reconnect tracker, JSON-RPC frame parsing, the hermes fields it
 * reads, and the re-attach sequence. Today they live in the proxy's sources;
 * when `@hermes-edge/protocol` lands, only these lines change.
 * @module
 */
export { SessionTracker, type EditorAnswer } from "../../../proxy/src/session-tracker.js";
export { ErrorCode, idKey, parseFrame, type Frame, type JsonRpcError, type JsonRpcId } from "../../../proxy/src/jsonrpc.js";
export { PROTOCOL_VERSION } from "../../../proxy/src/protocol.js";
export { ProxyRequests as OwnRequests } from "../../../proxy/src/proxy-requests.js";
export { reattach } from "../../../proxy/src/reattach.js";
export { backoffDelay } from "../../../proxy/src/backoff.js";

/** The subprotocol prefix that carries the key on a browser WebSocket (src/http/auth.ts). */
export const TOKEN_PROTOCOL_PREFIX = "hermes-edge-token.";
export const ACP_PROTOCOL = "acp";
/** The custom notification every attached connection receives when a turn ends. */
export const TURN_ENDED_METHOD = "_hermes/turn_ended";

import { z } from "zod";

/**
 * `_hermes/turn_ended` params as the web client reads them. Sent only to
 * clients that set `clientCapabilities._meta.hermes.turnEnded: true`.
 */
export const zTurnEnded = z.looseObject({
  sessionId: z.string(),
  stopReason: z.string(),
  seq: z.number().int(),
  error: z.looseObject({ code: z.number().int(), message: z.string() }).nullish(),
});
export type TurnEnded = z.infer<typeof zTurnEnded>;
