import { describe, expect, it } from "vitest";
import { declaredUpstreams, withDeclaredUpstreams, zUpstreamMessage } from "../src/upstream-tunnel.js";

describe("clientCapabilities._meta.hermes.upstreams", () => {
  it("reads the declared upstreams, and none when absent or malformed", () => {
    expect(declaredUpstreams({ _meta: { hermes: { upstreams: [{ id: "copilot", name: "copilot", extra: 1 }] } } })).toEqual([{ id: "copilot", name: "copilot" }]);
    expect(declaredUpstreams({})).toEqual([]);
    expect(declaredUpstreams(undefined)).toEqual([]);
    expect(declaredUpstreams({ _meta: { hermes: { upstreams: [{ id: "has space", name: "x" }] } } })).toEqual([]);
    expect(declaredUpstreams({ _meta: { hermes: { upstreams: "copilot" } } })).toEqual([]);
  });

  it("adds them to initialize params, keeping everything else", () => {
    const params = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, _meta: { hermes: { turnEnded: true }, other: 1 } } };
    expect(withDeclaredUpstreams(params, [{ id: "copilot", name: "copilot" }])).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true }, _meta: { hermes: { turnEnded: true, upstreams: [{ id: "copilot", name: "copilot" }] }, other: 1 } },
    });
    expect(withDeclaredUpstreams(params, [])).toBe(params);
  });
});

describe("_hermes/upstream/message params", () => {
  it("accepts one JSON-RPC message for a valid upstream id", () => {
    expect(zUpstreamMessage.safeParse({ upstreamId: "copilot", message: { jsonrpc: "2.0", id: 1, result: {} } }).success).toBe(true);
  });

  it.each([
    ["no upstreamId", { message: { jsonrpc: "2.0", method: "x" } }],
    ["a bad upstreamId", { upstreamId: "../x", message: { jsonrpc: "2.0", method: "x" } }],
    ["no message", { upstreamId: "copilot" }],
    ["a message that is not JSON-RPC 2.0", { upstreamId: "copilot", message: { id: 1 } }],
    ["a batch", { upstreamId: "copilot", message: [{ jsonrpc: "2.0", method: "x" }] }],
  ])("rejects %s", (_, params) => {
    expect(zUpstreamMessage.safeParse(params).success).toBe(false);
  });
});
