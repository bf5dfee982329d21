/**
 * A TCP relay in front of `wrangler dev` whose connections the test can cut
 * at will, as a network failure would: no close frame, the sockets are just
 * destroyed. The page is loaded through it, so its origin is
 * `http://127.0.0.1:<relay port>`.
 * @module
 */
import { connect, createServer, type Socket } from "node:net";

export interface TcpCutter {
  readonly port: number;
  /** Destroys every open connection; new ones are refused for `refuseForMs` (default 0). */
  cut(refuseForMs?: number): void;
  close(): Promise<void>;
}

export function startTcpCutter(targetPort: number): Promise<TcpCutter> {
  const open = new Set<Socket>();
  let refuseUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, "127.0.0.1");
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        port,
        cut(refuseForMs = 0) {
          refuseUntil = Date.now() + refuseForMs;
          for (const socket of open) socket.destroy();
          open.clear();
        },
        close: () =>
          new Promise((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
