/**
 * The official ACP SDK client over its WebSocket stream, with every frame in
 * both directions checked against the ACP v1 JSON schema.
 */
import { client, type SessionNotification } from "@agentclientprotocol/sdk";
import { createWebSocketStream, type WebSocketConstructor } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { AgentFrameValidator } from "../support/acp-schema.js";

export interface SdkClient {
  agent: ReturnType<ReturnType<typeof client>["connect"]>["agent"];
  updates: SessionNotification[];
  custom: { method: string; params: any }[];
  validator: AgentFrameValidator;
  socket(): WebSocket;
  close(): Promise<void>;
}

/** How a test's editor answers the agent's requests; a request without a handler gets the SDK's method-not-found. */
export interface EditorHandlers {
  permission?: (params: any) => unknown;
  elicitation?: (params: any, signal: AbortSignal) => unknown;
  readTextFile?: (params: any) => unknown;
  writeTextFile?: (params: any) => unknown;
}

export function answerRequests(app: ReturnType<typeof client>, handlers: EditorHandlers): void {
  if (handlers.permission) app.onRequest("session/request_permission", (ctx) => handlers.permission!(ctx.params) as any);
  // The signal aborts when the agent withdraws the request with `$/cancel_request`.
  if (handlers.elicitation) app.onRequest("elicitation/create", (ctx) => handlers.elicitation!(ctx.params, ctx.signal) as any);
  if (handlers.readTextFile) app.onRequest("fs/read_text_file", (ctx) => handlers.readTextFile!(ctx.params) as any);
  if (handlers.writeTextFile) app.onRequest("fs/write_text_file", (ctx) => handlers.writeTextFile!(ctx.params) as any);
}

export async function connectSdk(wsUrl: string, token: string, handlers: EditorHandlers = {}): Promise<SdkClient> {
  const validator = new AgentFrameValidator();
  let socket: WebSocket | undefined;
  class TappedWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[], options?: WebSocket.ClientOptions) {
      super(url, protocols, options);
      socket = this;
      this.on("message", (data) => validator.received(JSON.parse(String(data))));
    }
    override send(data: any, ...rest: any[]): void {
      validator.sent(JSON.parse(String(data)));
      (super.send as (...a: unknown[]) => void)(data, ...rest);
    }
  }
  const updates: SessionNotification[] = [];
  const custom: { method: string; params: any }[] = [];
  const app = client({ name: "hermes-edge-e2e" })
    .onNotification("session/update", (ctx) => {
      updates.push(ctx.params);
    })
    .onNotification("*", (ctx: any) => {
      custom.push({ method: ctx.method, params: ctx.params });
    });
  answerRequests(app, handlers);
  const stream = createWebSocketStream(wsUrl, {
    WebSocket: TappedWebSocket as unknown as WebSocketConstructor,
    headers: { Authorization: `Bearer ${token}` },
  });
  const conn = app.connect(stream);
  return {
    agent: conn.agent,
    updates,
    custom,
    validator,
    socket: () => socket!,
    close: async () => {
      conn.close();
      await conn.closed.catch(() => undefined);
    },
  };
}

/** The text of all agent message chunks for a session, in order. */
export function agentText(updates: SessionNotification[], sessionId: string): string {
  return updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.update as { content: { type: string; text?: string } }).content.text ?? "")
    .join("");
}
