/**
 * The fake upstream agent (`fake-upstream-agent.ts`) served over WebSocket on
 * 127.0.0.1, as a remote `HERMES_ACP_UPSTREAMS` entry. With a token, an
 * upgrade without `Authorization: Bearer <token>` is answered 401. Each
 * connection gets its own agent; `upstream:crash` drops that socket.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { WebSocketServer, type WebSocket } from "ws";
import { fakeUpstreamAgent } from "./fake-upstream-agent.js";

export interface FakeUpstreamServer {
  /** `ws://127.0.0.1:PORT/acp` */
  url: string;
  /** What the agents observed, across connections, in order. */
  events: { kind: string; [k: string]: unknown }[];
  close(): Promise<void>;
}

export async function startFakeUpstream(options: { token?: string } = {}): Promise<FakeUpstreamServer> {
  const events: FakeUpstreamServer["events"] = [];
  const wss = new WebSocketServer({ noServer: true });
  const http = createServer((_, res) => res.writeHead(426).end("WebSocket only"));
  http.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, events));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    events,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function serve(ws: WebSocket, events: FakeUpstreamServer["events"]): void {
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      ws.on("message", (data) => controller.enqueue(JSON.parse(String(data)) as AnyMessage));
      ws.on("close", () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    },
  });
  fakeUpstreamAgent({ crash: () => ws.terminate(), record: (e) => events.push(e) }).connect({ readable, writable });
}
