import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env.js";
import { corsPolicy, originPolicy } from "../../../src/http/origin-policy.js";

/** The two middlewares in front of a stand-in route, as src/worker.ts mounts them. */
function app(allowed?: string) {
  const hono = new Hono<{ Bindings: Env }>()
    .use("*", originPolicy(), corsPolicy())
    .get("/v1/sessions", (c) => c.json({ sessions: [] }))
    .get("/v1/secret", () => {
      throw new HTTPException(401, { res: Response.json({ error: "unauthorized" }, { status: 401 }) });
    });
  hono.onError((err) => (err instanceof HTTPException ? err.getResponse() : new Response("boom", { status: 500 })));
  const env = { HERMES_ALLOWED_ORIGINS: allowed } as Env;
  return (path: string, init?: RequestInit) => hono.request(`https://edge.example.dev${path}`, init, env);
}

describe("originPolicy", () => {
  it("lets requests without Origin through untouched, with no CORS headers", async () => {
    const res = await app()("/v1/sessions");
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("refuses a foreign Origin with 403 naming HERMES_ALLOWED_ORIGINS, and no CORS headers", async () => {
    const res = await app()("/v1/sessions", { headers: { Origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(await res.json()).toEqual({
      error: {
        code: -32001,
        message: expect.stringContaining("Origin https://evil.example is not allowed to use this service: add it to HERMES_ALLOWED_ORIGINS"),
        data: { origin: "https://evil.example", variable: "HERMES_ALLOWED_ORIGINS" },
      },
    });
  });

  it("refuses a foreign preflight too", async () => {
    const res = await app()("/v1/sessions", {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("allows the service's own origin even when the list names others", async () => {
    const res = await app("https://ide.example.com")("/v1/sessions", { headers: { Origin: "https://edge.example.dev" } });
    expect(res.status).toBe(200);
  });

  it("answers with 500 naming the variable when the list is malformed", async () => {
    const res = await app("https://ok.example.com, ide.example.com/path")("/v1/sessions", { headers: { Origin: "https://ok.example.com" } });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/^HERMES_ALLOWED_ORIGINS: "ide.example.com\/path" is not an origin pattern/);
  });

  it("still serves requests without Origin when the list is malformed", async () => {
    expect((await app("nope")("/v1/sessions")).status).toBe(200);
  });
});

describe("corsPolicy", () => {
  const origin = "https://ide.example.com";

  it("answers an allowed preflight with the origin, methods, headers and max age", async () => {
    const res = await app(origin)("/v1/sessions", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(res.headers.get("Access-Control-Allow-Methods")).toBe("GET,POST,PUT,DELETE,OPTIONS");
    expect(res.headers.get("Access-Control-Allow-Headers")).toBe("Authorization,Content-Type,Acp-Connection-Id,Acp-Session-Id,Last-Event-ID");
    expect(res.headers.get("Access-Control-Max-Age")).toBe("600");
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    expect(res.headers.get("Vary")).toContain("Origin");
  });

  it("puts the origin on answers and on errors, so a page can read why it was refused", async () => {
    const ok = await app(origin)("/v1/sessions", { headers: { Origin: origin } });
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    const refused = await app(origin)("/v1/secret", { headers: { Origin: origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe(origin);
  });
});
