/**
 * Issue 11, "unreachable service at start-up": until the proxy has reached the
 * service once, the editor's `initialize` is answered within 10 s with an
 * error naming the URL and the cause, instead of waiting --give-up-after.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv } from "./proxy-process.js";

const fx = useFakeService();
const env = () => isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" });
let plain: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  plain = undefined;
});

/**
 * Starts the proxy at `url`, sends initialize once it is up, returns its answer and how long
 * the answer took. The clock starts when the proxy can read the request: Node's own start-up
 * on a loaded machine is not the proxy's bound. The wait is longer than the bound, so a slow
 * answer fails on `ms`, with the answer in hand, not on a timeout.
 */
async function initializeAgainst(url: string) {
  const p = fx.spawn(["--url", url], env());
  await p.waitForStderr(/bridging stdio to /);
  const started = Date.now();
  const answer = await p.request("initialize", INIT_PARAMS, 30_000);
  return { p, answer, ms: Date.now() - started, error: answer["error"] as { code: number; message: string; data: Record<string, unknown> } };
}

describe("unreachable at start-up", () => {
  it("answers initialize with 'connection refused' and the URL within 10 s, then works once the service is up", async () => {
    await fx.service.stop();
    const { p, error, ms } = await initializeAgainst(fx.service.url);
    expect(ms).toBeLessThan(10_000);
    expect(error).toMatchObject({ code: -32603, data: { reason: "service_unreachable_at_startup", url: fx.service.url, cause: "refused" } });
    expect(error.message).toContain(fx.service.url);
    expect(error.message).toMatch(/connection refused/);
    // README's way to start it, and the sentence where Toad looks (data.details).
    expect(error.message).toContain("`npm start`");
    expect(error.message).not.toContain("wrangler dev");
    expect(error.data["details"]).toBe(error.message);
    expect(p.child.exitCode).toBeNull();
    // The proxy kept retrying: the editor's next initialize goes through.
    await fx.service.listen();
    const retried = await p.request("initialize", INIT_PARAMS, 30_000);
    expect(retried["result"]).toMatchObject({ protocolVersion: 1 });
  }, 90_000);

  it("names a DNS failure for a host that does not resolve", async () => {
    const url = "ws://hermes-edge-test.invalid:8787/acp";
    const { error, ms } = await initializeAgainst(url);
    expect(ms).toBeLessThan(10_000);
    expect(error).toMatchObject({ code: -32603, data: { url, cause: "dns" } });
    expect(error.message).toMatch(/host not found: DNS cannot resolve hermes-edge-test\.invalid/);
  });

  it("names a TLS failure (wss:// to a port that speaks plain HTTP)", async () => {
    const url = fx.service.url.replace("ws://", "wss://");
    const { error, ms } = await initializeAgainst(url);
    expect(ms).toBeLessThan(10_000);
    expect(error).toMatchObject({ data: { url, cause: "tls" } });
    expect(error.message).toMatch(/TLS handshake failed/);
  });

  it("names a 404 at the wrong path", async () => {
    const url = fx.service.url.replace("/acp", "/wrong");
    const { error, ms } = await initializeAgainst(url);
    expect(ms).toBeLessThan(10_000);
    expect(error).toMatchObject({ data: { url, cause: "not_found" } });
    expect(error.message).toMatch(/HTTP 404: nothing answers at \/wrong; the hermes-edge endpoint is \/acp/);
  });

  it("names a server that answers HTTP instead of upgrading (not a WebSocket)", async () => {
    plain = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<h1>hello</h1>"));
    await new Promise<void>((resolve) => plain!.listen(0, "127.0.0.1", resolve));
    const url = `ws://127.0.0.1:${(plain.address() as AddressInfo).port}/acp`;
    const { error, ms } = await initializeAgainst(url);
    expect(ms).toBeLessThan(10_000);
    expect(error).toMatchObject({ data: { url, cause: "not_websocket" } });
    expect(error.message).toMatch(/answered HTTP 200.*not a WebSocket endpoint/);
  });

  it("names the URL when the token is refused (401), and exits as before", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "wrong-token" }));
    const answer = await p.request("initialize", INIT_PARAMS, 30_000);
    expect(answer["error"]).toMatchObject({ code: -32000, message: expect.stringContaining(fx.service.url), data: { status: 401 } });
    expect((await p.exited).code).toBe(1);
  });

  it("leaves a later outage as it was: requests wait for the service to come back", async () => {
    const p = fx.spawn(["--url", fx.service.url], env());
    await p.request("initialize", INIT_PARAMS);
    await fx.service.stop();
    await p.waitForStderr(/connection to the service closed/);
    p.send({ id: 50, method: "_test/echo", params: { waited: true } });
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    expect(p.messages.some((m) => m.id === 50)).toBe(false);
    await fx.service.listen();
    const echo = await p.waitFor((m) => m.id === 50, 30_000, "queued request answer");
    expect(echo["result"]).toEqual({ echo: { waited: true } });
  }, 90_000);
});
