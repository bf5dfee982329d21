import { RequestError as SdkRequestError } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  authRequired,
  fromErrorResponse,
  internalError,
  invalidParams,
  invalidRequest,
  methodNotFound,
  parseError,
  RequestError,
  requestCancelled,
  sessionNotFound,
  toErrorResponse,
} from "../src/index.js";

afterEach(() => vi.restoreAllMocks());

describe("error constructors", () => {
  it("build the SDK's RequestError, the one error class", () => {
    expect(RequestError).toBe(SdkRequestError);
    expect(sessionNotFound()).toBeInstanceOf(SdkRequestError);
  });

  it("keep the bodies hermes-edge has always sent, one per code", () => {
    expect(toErrorResponse(parseError("bad"))).toEqual({ code: -32700, message: "Parse error", data: { detail: "bad" } });
    expect(toErrorResponse(invalidRequest())).toStrictEqual({ code: -32600, message: "Invalid request" });
    expect(toErrorResponse(methodNotFound("foo/bar"))).toEqual({ code: -32601, message: "Method not found", data: { method: "foo/bar" } });
    expect(toErrorResponse(invalidParams([{ path: ["cwd"] }]))).toEqual({ code: -32602, message: "Invalid params", data: [{ path: ["cwd"] }] });
    expect(toErrorResponse(invalidParams([], "Invalid cursor"))).toEqual({ code: -32602, message: "Invalid cursor", data: [] });
    expect(toErrorResponse(internalError("x"))).toEqual({ code: -32603, message: "Internal error", data: { detail: "x" } });
    expect(toErrorResponse(requestCancelled())).toStrictEqual({ code: -32800, message: "Request cancelled" });
    expect(toErrorResponse(authRequired())).toStrictEqual({ code: -32000, message: "Authentication required" });
    expect(toErrorResponse(authRequired("logged out"))).toEqual({ code: -32000, message: "Authentication required", data: { detail: "logged out" } });
  });

  it("answers sessionNotFound identically every time, so ids do not leak", () => {
    const a = toErrorResponse(sessionNotFound());
    expect(a).toEqual({ code: -32002, message: "Resource not found", data: { detail: "no such session" } });
    expect(JSON.stringify(a)).toBe(JSON.stringify(toErrorResponse(sessionNotFound())));
  });
});

describe("toErrorResponse", () => {
  it("returns a RequestError's own body, without a data key when it has none", () => {
    expect(toErrorResponse(new RequestError(-32003, "tenant limit reached", { limit: "turns" }))).toEqual({
      code: -32003,
      message: "tenant limit reached",
      data: { limit: "turns" },
    });
    expect(Object.keys(toErrorResponse(requestCancelled()))).toEqual(["code", "message"]);
  });

  it("maps a ZodError to -32602 with its issues as data", () => {
    const result = z.object({ cwd: z.string() }).safeParse({ cwd: 1 });
    expect(result.success).toBe(false);
    const body = toErrorResponse(result.error);
    expect(body).toEqual({ code: -32602, message: "Invalid params", data: result.error!.issues });
    expect((body.data as Array<{ path: unknown[] }>)[0]!.path).toEqual(["cwd"]);
  });

  it("maps anything else to a bare -32603 and logs it: its message may carry internals", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const err = new Error('Failed query: insert into "sessions" values (?)\nparams: alpha,/secret/path');
    expect(toErrorResponse(err)).toStrictEqual({ code: -32603, message: "Internal error" });
    expect(toErrorResponse("oops")).toStrictEqual({ code: -32603, message: "Internal error" });
    expect(log).toHaveBeenCalledTimes(2);
  });

  it("turns a body that crossed Durable Object RPC back into the error it was", () => {
    const body = { code: -32002, message: "Resource not found", data: { detail: "no such session" } };
    const err = fromErrorResponse(body);
    expect(err).toBeInstanceOf(RequestError);
    expect(toErrorResponse(err)).toEqual(body);
  });
});
