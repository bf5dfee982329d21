import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AcpError, isErrorBody, toJsonRpcError } from "../../../src/acp/errors.js";

afterEach(() => vi.restoreAllMocks());

describe("AcpError", () => {
  it("has one constructor per code", () => {
    expect(AcpError.parseError("bad").toJSON()).toEqual({ code: -32700, message: "Parse error", data: { detail: "bad" } });
    expect(AcpError.invalidRequest().toJSON()).toEqual({ code: -32600, message: "Invalid request" });
    expect(AcpError.methodNotFound("foo/bar").toJSON()).toEqual({ code: -32601, message: "Method not found", data: { method: "foo/bar" } });
    expect(AcpError.invalidParams([{ path: ["cwd"] }]).toJSON()).toEqual({ code: -32602, message: "Invalid params", data: [{ path: ["cwd"] }] });
    expect(AcpError.internalError("x").toJSON()).toEqual({ code: -32603, message: "Internal error", data: { detail: "x" } });
    expect(AcpError.requestCancelled().toJSON()).toEqual({ code: -32800, message: "Request cancelled" });
    expect(AcpError.authRequired().toJSON()).toEqual({ code: -32000, message: "Authentication required" });
  });

  it("answers resourceNotFound identically every time, so ids do not leak", () => {
    const a = AcpError.resourceNotFound().toJSON();
    const b = AcpError.resourceNotFound().toJSON();
    expect(a).toEqual({ code: -32002, message: "Resource not found", data: { detail: "no such session" } });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe("toJsonRpcError", () => {
  it("returns an AcpError's own body", () => {
    expect(toJsonRpcError(AcpError.methodNotFound("x"))).toEqual({ code: -32601, message: "Method not found", data: { method: "x" } });
  });

  it("maps a ZodError to -32602 with its issues as data", () => {
    const result = z.object({ cwd: z.string() }).safeParse({ cwd: 1 });
    expect(result.success).toBe(false);
    const body = toJsonRpcError(result.error);
    expect(body).toEqual({ code: -32602, message: "Invalid params", data: result.error!.issues });
    expect((body.data as Array<{ path: unknown[] }>)[0]!.path).toEqual(["cwd"]);
  });

  it("passes a plain error body (as it crosses Durable Object RPC) through unchanged", () => {
    const body = { code: -32002, message: "Resource not found", data: { detail: "no such session" } };
    expect(toJsonRpcError(body)).toBe(body);
    expect(isErrorBody({ code: 1, message: "m" })).toBe(true);
    expect(isErrorBody({ code: "1", message: "m" })).toBe(false);
    expect(isErrorBody(null)).toBe(false);
  });

  it("maps anything else to -32603 with its message, and logs it", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(toJsonRpcError(new TypeError("x is undefined"))).toEqual({
      code: -32603,
      message: "Internal error",
      data: { detail: "x is undefined" },
    });
    expect(toJsonRpcError("oops")).toEqual({ code: -32603, message: "Internal error", data: { detail: "oops" } });
    expect(log).toHaveBeenCalledTimes(2);
  });
});
