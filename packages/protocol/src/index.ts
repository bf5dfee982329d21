/**
 * `@hermes-edge/protocol`: the hermes-edge wire protocol, written once for the
 * service, the stdio proxy and the browser client. Protocol types and
 * constants still come from `@agentclientprotocol/sdk`; this adds the envelope,
 * the errors, the hermes extensions and the reconnect logic.
 * @module
 */
export { AGENT_METHODS, CLIENT_METHODS, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
export * from "./backoff.js";
export * from "./client-request-id.js";
export * from "./envelope.js";
export * from "./errors.js";
export * from "./hermes-meta.js";
export * from "./http-error-body.js";
export * from "./initialize-info.js";
export * from "./initialize-result.js";
export * from "./own-requests.js";
export * from "./oversize-ledger.js";
export * from "./reattach.js";
export * from "./reconnect-tracker.js";
export * from "./service-requests.js";
export * from "./utf8-size.js";
export * from "./session-setup.js";
export type * from "./tracker-types.js";
export * from "./turn-ended.js";
export * from "./upstream-tunnel.js";
export * from "./mcp-message.js";
export * from "./sharing.js";
