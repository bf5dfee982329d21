/**
 * An empty page served from an origin other than the service's, as an
 * integrator's site would be: the tests load the client module into it.
 * @module
 */
import { createServer } from "node:http";

export interface BlankPage {
  /** e.g. `http://127.0.0.2:41234` */
  readonly origin: string;
  close(): Promise<void>;
}

export function serveBlankPage(host: string, name: string): Promise<BlankPage> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><meta charset="utf-8"><title>${name}</title><p id="out"></p>`);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({ origin: `http://${host}:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
