/**
 * One physical WebSocket to `/acp`, framed by the SDK's
 * `createWebSocketStream` (one JSON-RPC message per text frame). The socket
 * itself is kept too: its events say when it opened and why it closed, which
 * the stream alone does not.
 * @module
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { createWebSocketStream, type WebSocketConstructor } from "@agentclientprotocol/sdk/experimental/ws-client";

/** What a link needs from a WebSocket (the browser's, or `ws` in Node). */
export interface LinkSocket {
  readonly readyState: number;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close", listener: (event: { code?: number; reason?: string }) => void): void;
}

export interface SocketLink {
  readonly socket: LinkSocket;
  send(message: AnyMessage): void;
  close(code?: number, reason?: string): void;
}

export interface LinkHandlers {
  message(link: SocketLink, message: AnyMessage): void;
  /** After the last message of an opened link has been handled. */
  closed(link: SocketLink, code: number, reason: string): void;
}

export type LinkOutcome =
  | { readonly ok: true; readonly link: SocketLink }
  /** The socket never opened. `thrown` is set when the constructor refused (say, a key that is no valid subprotocol). */
  | { readonly ok: false; readonly code: number; readonly thrown?: Error };

const OPEN = 1;

export function openLink(
  url: string,
  protocols: string[],
  handlers: LinkHandlers,
  options: { WebSocket?: WebSocketConstructor; timeoutMs: number },
): Promise<LinkOutcome> {
  const Base = options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor | undefined);
  if (!Base) return Promise.resolve({ ok: false, code: 1006, thrown: new Error("this environment has no WebSocket") });
  let socket: LinkSocket | undefined;
  // A constructor that returns the socket it made, so the link can watch it.
  const Capturing = function (this: unknown, u: string, p?: string | string[], init?: { headers?: Record<string, string> }) {
    socket = new Base(u, p, init) as unknown as LinkSocket;
    return socket;
  } as unknown as WebSocketConstructor;
  let stream: ReturnType<typeof createWebSocketStream>;
  try {
    stream = createWebSocketStream(url, { protocols, WebSocket: Capturing, cookies: "omit" });
  } catch (err) {
    return Promise.resolve({ ok: false, code: 1006, thrown: err instanceof Error ? err : new Error(String(err)) });
  }
  const ws = socket!;
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const link: SocketLink = {
    socket: ws,
    send: (message) => {
      if (ws.readyState === OPEN) writer.write(message).catch(() => undefined);
    },
    close: (code = 1000, reason = "") => {
      try {
        ws.close(code, reason);
      } catch {
        // already closing
      }
    },
  };
  return new Promise((resolve) => {
    let opened = false;
    let closeCode = 1006;
    let closeReason = "";
    const timer = setTimeout(() => link.close(4000, "handshake timed out"), options.timeoutMs);
    ws.addEventListener("open", () => {
      opened = true;
      clearTimeout(timer);
      resolve({ ok: true, link });
    });
    ws.addEventListener("close", (event) => {
      closeCode = event.code ?? 1006;
      closeReason = event.reason ?? "";
    });
    // Messages are handed on from the stream; the link counts as closed only
    // once the stream has delivered all it had, so nothing is handled late.
    void (async () => {
      for (;;) {
        const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (next.done) break;
        handlers.message(link, next.value);
      }
      clearTimeout(timer);
      if (opened) handlers.closed(link, closeCode, closeReason);
      else resolve({ ok: false, code: closeCode });
    })();
  });
}
