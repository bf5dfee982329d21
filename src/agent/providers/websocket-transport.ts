/**
 * An ACP stream over an outbound WebSocket from the Worker. Workers open
 * client WebSockets with `fetch` and an `Upgrade` header (which, unlike the
 * `WebSocket` constructor, can carry `Authorization`), so the SDK's
 * constructor-based `createWebSocketStream` cannot be used here.
 */
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { UpstreamUnavailable } from "./acp-upstream-provider.js";
import type { RemoteUpstream } from "./upstream-config.js";

export async function openWebSocketStream(upstream: Pick<RemoteUpstream, "url" | "token">): Promise<Stream> {
  const httpUrl = upstream.url.replace(/^ws/, "http");
  let response: Response;
  try {
    response = await fetch(httpUrl, {
      // No abort signal: aborting it would close the socket before `session/cancel` is sent.
      headers: { Upgrade: "websocket", ...(upstream.token ? { Authorization: `Bearer ${upstream.token}` } : {}) },
    });
  } catch (err) {
    throw new UpstreamUnavailable(`${upstream.url} is unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
  const ws = response.webSocket;
  if (!ws) {
    const why = response.status === 401 || response.status === 403 ? ": the token was refused" : "";
    throw new UpstreamUnavailable(`${upstream.url} answered HTTP ${response.status} instead of a WebSocket${why}`);
  }
  ws.accept();
  return webSocketStream(ws);
}

/** JSON-RPC messages as text frames; a frame that is not JSON is dropped (the peer is not speaking ACP). */
export function webSocketStream(ws: WebSocket): Stream {
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      ws.addEventListener("message", (event) => {
        if (typeof event.data !== "string") return;
        try {
          controller.enqueue(JSON.parse(event.data) as AnyMessage);
        } catch {
          // not JSON: ignored
        }
      });
      ws.addEventListener("close", () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
      ws.addEventListener("error", () => controller.error(new Error("the WebSocket failed")));
    },
    // The call's connection closes by cancelling what it reads: the socket goes with it.
    cancel() {
      try {
        ws.close(1000, "done");
      } catch {
        // already closed
      }
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      ws.send(JSON.stringify(message));
    },
    close() {
      ws.close(1000, "done");
    },
    abort() {
      ws.close(1011, "aborted");
    },
  });
  return { readable, writable };
}
