/**
 * The origin allow-list and CORS as the deployed Worker applies them: WebSocket
 * upgrades and REST calls that carry `Origin`, through `SELF` (default list)
 * and through the Worker's fetch with HERMES_ALLOWED_ORIGINS set.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker.js";
import { TestClient, upgrade } from "./acp-test-client.js";

const browser = (origin: string) => ({ protocols: ["acp", "hermes-edge-token.tok-alpha"], token: null, headers: { Origin: origin } });

/** The Worker with its real bindings, but another allow-list. */
function withAllowList(list: string, path: string, init: RequestInit): Promise<Response> {
  const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
  return Promise.resolve(worker.fetch(new Request(`http://hermes.test${path}`, init), { ...env, HERMES_ALLOWED_ORIGINS: list }, ctx));
}

describe("origin allow-list on /acp", () => {
  it("accepts a browser upgrade from http://localhost on any port and speaks ACP on it", async () => {
    const res = await upgrade(browser("http://localhost:5173"));
    expect(res.status).toBe(101);
    expect(res.headers.get("Sec-WebSocket-Protocol")).toBe("acp");
    res.webSocket!.accept();
    const client = new TestClient(res.webSocket!, res);
    expect((await client.call("initialize", { protocolVersion: 1, clientCapabilities: {} })).protocolVersion).toBe(1);
    client.close();
  });

  it("accepts the service's own origin", async () => {
    const res = await upgrade(browser("http://hermes.test"));
    expect(res.status).toBe(101);
    res.webSocket!.accept();
    res.webSocket!.close(1000);
  });

  it("refuses a foreign origin with 403 naming HERMES_ALLOWED_ORIGINS, before looking at the key", async () => {
    for (const protocols of [["acp", "hermes-edge-token.tok-alpha"], ["acp", "hermes-edge-token.wrong"]]) {
      const res = await upgrade({ ...browser("https://evil.example"), protocols });
      expect(res.status).toBe(403);
      expect(res.webSocket).toBeNull();
      const body = (await res.json()) as { error: { code: string; message: string; data: unknown } };
      expect(body.error.code).toBe(-32001);
      expect(body.error.message).toContain("add it to HERMES_ALLOWED_ORIGINS");
      expect(body.error.data).toEqual({ origin: "https://evil.example", variable: "HERMES_ALLOWED_ORIGINS" });
    }
  });

  it("leaves upgrades without Origin (editors, the proxy) alone", async () => {
    const client = await TestClient.ready();
    expect((await client.call("session/list", {})).sessions).toBeInstanceOf(Array);
    client.close();
  });

  it("follows HERMES_ALLOWED_ORIGINS when it is set: its origins in, the defaults out", async () => {
    const list = "https://*.ide.example";
    const ok = await withAllowList(list, "/acp", {
      headers: { Upgrade: "websocket", Origin: "https://team.ide.example", "Sec-WebSocket-Protocol": "acp, hermes-edge-token.tok-alpha" },
    });
    expect(ok.status).toBe(101);
    ok.webSocket!.accept();
    ok.webSocket!.close(1000);
    const refused = await withAllowList(list, "/acp", {
      headers: { Upgrade: "websocket", Origin: "http://localhost:5173", "Sec-WebSocket-Protocol": "acp, hermes-edge-token.tok-alpha" },
    });
    expect(refused.status).toBe(403);
  });
});

describe("origin allow-list and CORS on REST", () => {
  const auth = { Authorization: "Bearer tok-alpha" };

  it("serves REST to an allowed origin with CORS headers", async () => {
    const res = await SELF.fetch("http://hermes.test/v1/sessions", { headers: { ...auth, Origin: "http://127.0.0.1:3000" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://127.0.0.1:3000");
    expect(res.headers.get("Vary")).toContain("Origin");
  });

  it("answers an allowed preflight for Authorization", async () => {
    const res = await SELF.fetch("http://hermes.test/v1/sessions", {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:5173");
    expect(res.headers.get("Access-Control-Allow-Headers")).toContain("Authorization");
  });

  it("lets an allowed page read why its key was refused", async () => {
    const res = await SELF.fetch("http://hermes.test/acp", { headers: { Authorization: "Bearer nope", Origin: "http://localhost:5173" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:5173");
  });

  it("refuses REST and preflights from a foreign origin, without CORS headers", async () => {
    const get = await SELF.fetch("http://hermes.test/v1/sessions", { headers: { ...auth, Origin: "https://evil.example" } });
    expect(get.status).toBe(403);
    expect(get.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const preflight = await SELF.fetch("http://hermes.test/v1/sessions", {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("serves REST without Origin exactly as before, with no CORS headers", async () => {
    const res = await SELF.fetch("http://hermes.test/v1/sessions", { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
