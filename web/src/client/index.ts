/**
 * hermes-edge's browser client module, served at `/client.js`:
 *
 * ```js
 * import { connect } from "https://your-service.example/client.js";
 * const hermes = await connect({ url: "wss://your-service.example/acp", key, handlers });
 * ```
 * @module
 */
export { connect, type ClientHandlers, type ConnectOptions, type HermesConnection } from "./connect.js";
export { ConnectionRefusedError, type ConnectionStatus } from "./reconnecting-transport.js";
export type { Refusal, RefusalKind } from "./refusal.js";
export type { TurnEndedParams } from "./hermes-protocol.js";
