/**
 * `connect()`: an ACP client for hermes-edge in a browser. It speaks through
 * the official SDK's `client()` over a browser WebSocket, offering the
 * subprotocols `acp` and `hermes-edge-token.<key>` (browsers cannot set
 * headers), and reconnects without losing or repeating anything.
 * @module
 */
import {
  client,
  type ClientCapabilities,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type Implementation,
  type InitializeRequest,
  type InitializeResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
  type WriteTextFileResponse,
} from "@agentclientprotocol/sdk";
import type { WebSocketConstructor } from "@agentclientprotocol/sdk/experimental/ws-client";
import {
  ACP_PROTOCOL,
  PROTOCOL_VERSION,
  TOKEN_PROTOCOL_PREFIX,
  TURN_ENDED,
  withTurnEndedCapability,
  zTurnEndedParams,
  type TurnEndedParams,
} from "./hermes-protocol.js";
import { ReconnectingTransport, type ConnectionStatus } from "./reconnecting-transport.js";
import { explainRefusal } from "./refusal.js";

type MaybePromise<T> = T | Promise<T>;

/** What the page does when the agent asks. Leave one out and the agent is told the method is not supported. */
export interface ClientHandlers {
  sessionUpdate?(params: SessionNotification): void;
  /** A turn ended in a session this connection is attached to (whoever started it). */
  turnEnded?(params: TurnEndedParams): void;
  requestPermission?(params: RequestPermissionRequest, signal: AbortSignal): MaybePromise<RequestPermissionResponse>;
  readTextFile?(params: ReadTextFileRequest, signal: AbortSignal): MaybePromise<ReadTextFileResponse>;
  writeTextFile?(params: WriteTextFileRequest, signal: AbortSignal): MaybePromise<WriteTextFileResponse | void>;
  createElicitation?(params: CreateElicitationRequest, signal: AbortSignal): MaybePromise<CreateElicitationResponse>;
}

export interface ConnectOptions {
  /** `wss://your-service.example/acp` (or `ws://127.0.0.1:8787/acp` locally). */
  url: string;
  /** A service key (a managed `he_…` key, or a token from HERMES_EDGE_TOKENS). Sent as a WebSocket subprotocol, never in the URL. */
  key: string;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  handlers?: ClientHandlers;
  /** Called on every change: connecting, open, reconnecting (with the attempt), closed. */
  onStatus?: (status: ConnectionStatus) => void;
  /** Default: the browser's WebSocket. */
  WebSocket?: WebSocketConstructor;
}

export interface HermesConnection {
  /** The SDK's agent context: `agent.request("session/new", …)`, `agent.notify("session/cancel", …)`. */
  readonly agent: ClientContext;
  /** The service's answer to `initialize`. */
  readonly initialize: InitializeResponse;
  readonly status: ConnectionStatus;
  close(): void;
  /** Settles when the connection is closed for good (by `close()`, a refused key, or the page). */
  readonly closed: Promise<void>;
}

/**
 * Opens the connection and initializes it.
 * @throws ConnectionRefusedError with the service's reason (wrong key, refused origin, unreachable)
 */
export async function connect(options: ConnectOptions): Promise<HermesConnection> {
  const { url, key, handlers = {} } = options;
  const origin = typeof location === "undefined" ? undefined : location.origin;
  const transport = new ReconnectingTransport({
    url,
    protocols: [ACP_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${key}`],
    explainRefusal: () => explainRefusal(url, key, origin),
    onStatus: options.onStatus,
    WebSocket: options.WebSocket,
  });
  options.onStatus?.(transport.status);
  await transport.start();

  const app = client({ name: "hermes-edge-web" });
  app.onNotification("session/update", (ctx) => handlers.sessionUpdate?.(ctx.params));
  app.onNotification(TURN_ENDED, zTurnEndedParams, (ctx) => handlers.turnEnded?.(ctx.params));
  const { requestPermission, readTextFile, writeTextFile, createElicitation } = handlers;
  if (requestPermission) app.onRequest("session/request_permission", (ctx) => requestPermission(ctx.params, ctx.signal));
  if (readTextFile) app.onRequest("fs/read_text_file", (ctx) => readTextFile(ctx.params, ctx.signal));
  if (writeTextFile) app.onRequest("fs/write_text_file", (ctx) => writeTextFile(ctx.params, ctx.signal));
  if (createElicitation) app.onRequest("elicitation/create", (ctx) => createElicitation(ctx.params, ctx.signal));
  const connection = app.connect(transport.stream);

  let initialize: InitializeResponse;
  try {
    // The reconnect tracker settles prompts from `_hermes/turn_ended`, which the service sends only to clients that ask.
    const params = withTurnEndedCapability({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: options.clientCapabilities ?? {},
      clientInfo: options.clientInfo ?? { name: "hermes-edge-web", version: "0.1.0" },
    }) as InitializeRequest;
    initialize = await connection.agent.request("initialize", params);
  } catch (err) {
    connection.close();
    transport.close("initialize failed");
    throw err;
  }
  return {
    agent: connection.agent,
    initialize,
    get status() {
      return transport.status;
    },
    close: () => {
      connection.close();
      transport.close("closed by the page");
    },
    closed: connection.closed,
  };
}
