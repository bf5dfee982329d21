/**
 * The floor: a minimal `ws` server on 127.0.0.1 that answers every JSON-RPC
 * request at once with its own params as the result (an echo of the same
 * size, in the shape the proxy expects from a service). Run as a separate
 * process, as workerd is, so a round trip crosses processes the same way.
 *
 *   node --import tsx bench/lib/echo-server.ts   → prints "listening PORT"
 *
 * In-process use: `startEchoServer()`; from another process: `spawnEchoServer()`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { WebSocketServer } from "ws";

export interface EchoServer {
  url: string;
  close(): Promise<void>;
}

export async function startEchoServer(): Promise<EchoServer> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  wss.on("headers", (headers) => headers.push("Acp-Connection-Id: echo"));
  wss.on("connection", (socket) => {
    socket.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      // A full parse, as any JSON-RPC peer must do; notifications get no answer.
      const msg = JSON.parse(text) as { id?: unknown; method?: string; params?: unknown };
      if (msg.id === undefined || msg.method === undefined) return;
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: msg.params ?? null }));
    });
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** The echo server in a child process; `close()` ends it. */
export async function spawnEchoServer(timeoutMs = 20_000): Promise<EchoServer & { pid: number }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("echo server did not start")), timeoutMs);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`echo server exited (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    pid: child.pid!,
    close: async () => {
      child.stdin!.end(); // the child exits when its stdin closes
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startEchoServer();
  process.stdout.write(`listening ${new URL(server.url).port}\n`);
  // Bounded: the parent ends stdin to stop it, and it never outlives 30 minutes.
  const stop = () => void server.close().finally(() => process.exit(0));
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.resume();
  setTimeout(stop, 30 * 60_000).unref();
}
