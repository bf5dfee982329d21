import { RequestError } from "@agentclientprotocol/sdk";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { httpError, onError, statusOfCode } from "../../../src/http/http-error.js";

function appThrowing(err: () => unknown) {
  const app = new Hono();
  app.get("/", () => {
    throw err();
  });
  app.onError(onError);
  return app;
}

async function answer(err: () => unknown) {
  const res = await appThrowing(err).request("/");
  return { status: res.status, body: (await res.json()) as { error: Record<string, unknown> }, headers: res.headers };
}

describe("the one REST error shape", () => {
  it("maps JSON-RPC codes to HTTP statuses: -32002 404, -32602 400, -32000 401, the rest 500", () => {
    expect([-32002, -32602, -32000, -32001, -32003, -32004, -32700].map(statusOfCode)).toEqual([404, 400, 401, 403, 429, 429, 400]);
    expect([-32603, -32601, -32800, -32099].map(statusOfCode)).toEqual([500, 500, 500, 500]);
  });

  it("answers an httpError with its body, status and headers", async () => {
    const res = await answer(() => httpError(-32000, "key revoked", { reason: "revoked" }, { headers: { "WWW-Authenticate": "Bearer" } }));
    expect(res).toMatchObject({ status: 401, body: { error: { code: -32000, message: "key revoked", data: { reason: "revoked" } } } });
    expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
    expect((await answer(() => httpError(-32600, "upgrade", undefined, { status: 426 }))).status).toBe(426);
  });

  it("maps protocol errors thrown below the routes by their code", async () => {
    expect(await answer(() => RequestError.resourceNotFound("x"))).toMatchObject({ status: 404, body: { error: { code: -32002 } } });
    const limit = new RequestError(-32003, "tenant limit reached: x", { limit: "dailyTokens", used: 1, max: 1 });
    expect(await answer(() => limit)).toEqual({
      status: 429,
      body: { error: { code: -32003, message: "tenant limit reached: x", data: { limit: "dailyTokens", used: 1, max: 1 } } },
      headers: expect.anything(),
    });
  });

  it("answers a ZodError with -32602 and its issues", async () => {
    const res = await answer(() => z.object({ a: z.string() }).parse({}));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: -32602, message: "Invalid params", data: [expect.objectContaining({ path: ["a"] })] });
  });

  it("gives Hono's own HTTPExceptions the same shape", async () => {
    expect(await answer(() => new HTTPException(400, { message: "Malformed JSON in request body" }))).toMatchObject({
      status: 400,
      body: { error: { code: -32602, message: "Malformed JSON in request body" } },
    });
  });

  it("leaks nothing internal in a 500: not the message, not the data", async () => {
    for (const err of [
      () => new Error("D1_ERROR: no such table: secret_things at /src/db/x.ts:12"),
      () => new RequestError(-32603, "Internal error", { detail: "stack at SessionObject.#run" }),
      () => httpError(-32603, "database password is hunter2", { stack: "..." }),
    ]) {
      const res = await answer(err);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: -32603, message: "Internal error" } });
    }
  });
});
