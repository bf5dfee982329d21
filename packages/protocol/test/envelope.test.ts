import { describe, expect, it } from "vitest";
import { decodeFrame, errorFrame, idKey, notificationFrame, requestFrame, resultFrame, toErrorResponse, type Decoded } from "../src/index.js";

/** The id and wire error body of a decode that must be invalid. */
function invalid(decoded: Decoded) {
  if (decoded.kind !== "invalid") throw new Error(`expected invalid, got ${decoded.kind}`);
  return { id: decoded.id, error: toErrorResponse(decoded.error) };
}

describe("decodeFrame: bad input", () => {
  it("answers invalid JSON with -32700 and id null", () => {
    const { id, error } = invalid(decodeFrame('{"jsonrpc":"2.0","id":1,'));
    expect(id).toBeNull();
    expect(error.code).toBe(-32700);
    expect(error.message).toBe("Parse error");
    expect(error.data).toEqual({ detail: expect.any(String) });
  });

  it("answers a batch (JSON array) with one -32600 and id null", () => {
    expect(invalid(decodeFrame('[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","id":2,"method":"x"}]'))).toEqual({
      id: null,
      error: { code: -32600, message: "Invalid request", data: { detail: "batches are not supported by ACP" } },
    });
    expect(invalid(decodeFrame("[]")).error.code).toBe(-32600);
  });

  it.each(["42", '"hello"', "null", "true"])("answers the non-object %s with -32600 and id null", (text) => {
    expect(invalid(decodeFrame(text))).toEqual({
      id: null,
      error: { code: -32600, message: "Invalid request", data: { detail: "a JSON-RPC message must be an object" } },
    });
  });

  it("keeps the id when the jsonrpc version is wrong", () => {
    const { id, error } = invalid(decodeFrame('{"jsonrpc":"1.0","id":7,"method":"initialize"}'));
    expect(id).toBe(7);
    expect(error.code).toBe(-32600);
    expect(error.data).toEqual({ detail: expect.stringContaining("jsonrpc") });
  });

  it("keeps a string id and reports a missing jsonrpc field", () => {
    const { id, error } = invalid(decodeFrame('{"id":"abc","method":"initialize"}'));
    expect(id).toBe("abc");
    expect(error.code).toBe(-32600);
  });

  it("answers an object that is neither request, notification nor response with -32600, keeping the id", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":3}'))).toEqual({
      id: 3,
      error: { code: -32600, message: "Invalid request", data: { detail: "not a JSON-RPC request, notification or response" } },
    });
  });

  it("drops an id that is not a string or an integer", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":1.5,"method":"x"}')).id).toBeNull();
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":{"a":1},"method":"x"}')).id).toBeNull();
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":null,"method":"x"}')).id).toBeNull();
  });

  it("rejects an empty or non-string method", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":1,"method":""}'))).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","method":5}'))).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("rejects a response whose error is not an error object, keeping the id", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","id":9,"error":"nope"}'))).toMatchObject({ id: 9, error: { code: -32600 } });
  });
});

describe("decodeFrame: valid messages", () => {
  it("decodes a request with its id and params", () => {
    expect(decodeFrame('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}')).toEqual({
      kind: "request",
      message: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } },
    });
    expect(decodeFrame('{"jsonrpc":"2.0","id":"r-1","method":"session/list"}')).toEqual({
      kind: "request",
      message: { jsonrpc: "2.0", id: "r-1", method: "session/list" },
    });
  });

  it("decodes a message without an id as a notification", () => {
    expect(decodeFrame('{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}')).toEqual({
      kind: "notification",
      message: { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } },
    });
  });

  it("decodes a result response, including a null result", () => {
    expect(decodeFrame('{"jsonrpc":"2.0","id":"hermes:s:1","result":{"outcome":{"outcome":"cancelled"}}}')).toEqual({
      kind: "response",
      message: { jsonrpc: "2.0", id: "hermes:s:1", result: { outcome: { outcome: "cancelled" } } },
    });
    expect(decodeFrame('{"jsonrpc":"2.0","id":4,"result":null}')).toEqual({
      kind: "response",
      message: { jsonrpc: "2.0", id: 4, result: null },
    });
  });

  it("decodes an error response with its code, message and data", () => {
    expect(decodeFrame('{"jsonrpc":"2.0","id":"hermes:s:2","error":{"code":-32000,"message":"denied","data":{"why":"no"}}}')).toEqual({
      kind: "response",
      message: { jsonrpc: "2.0", id: "hermes:s:2", error: { code: -32000, message: "denied", data: { why: "no" } } },
    });
  });
});

describe("frames", () => {
  it("writes results, errors, notifications and requests as JSON-RPC 2.0", () => {
    expect(resultFrame(1, { ok: true })).toBe('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
    expect(errorFrame(null, { code: -32700, message: "Parse error" })).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
    expect(notificationFrame("session/update", { sessionId: "s" })).toBe(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}',
    );
    expect(requestFrame("hermes:s:1", "fs/read_text_file", { path: "/a" })).toBe(
      '{"jsonrpc":"2.0","id":"hermes:s:1","method":"fs/read_text_file","params":{"path":"/a"}}',
    );
  });
});

describe("responses with a null id", () => {
  it("decodes an error response with id null as a response, so it is never answered", () => {
    const decoded = decodeFrame('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}');
    expect(decoded).toMatchObject({ kind: "response", message: { id: null, error: { code: -32700 } } });
  });
});

describe("decodeFrame: details", () => {
  it("names every problem of a bad request in one detail", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"1.0","id":true,"method":""}'))).toEqual({
      id: null,
      error: {
        code: -32600,
        message: "Invalid request",
        data: { detail: 'jsonrpc: must be "2.0"; method: must be a non-empty string; id: must be a string or an integer' },
      },
    });
  });

  it("refuses a response without an id", () => {
    expect(invalid(decodeFrame('{"jsonrpc":"2.0","result":{}}'))).toEqual({
      id: null,
      error: { code: -32600, message: "Invalid request", data: { detail: "id: must be a string, an integer or null" } },
    });
  });

  it("keeps only the envelope's own fields", () => {
    expect(decodeFrame('{"jsonrpc":"2.0","id":1,"method":"m","extra":1}')).toEqual({
      kind: "request",
      message: { jsonrpc: "2.0", id: 1, method: "m" },
    });
    expect(decodeFrame('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","stack":"x"}}')).toEqual({
      kind: "response",
      message: { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } },
    });
  });
});

describe("idKey", () => {
  it("tells the number 1 from the string 1", () => {
    expect(idKey(1)).not.toBe(idKey("1"));
    expect(idKey("hermes:s:1")).toBe(idKey("hermes:s:1"));
  });
});
