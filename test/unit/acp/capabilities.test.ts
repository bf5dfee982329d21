import { describe, expect, it } from "vitest";
import pkg from "../../../package.json";
import { authMethods, initializeResult, SETUP_AUTH_METHOD_ID, TOKEN_AUTH_METHOD_ID } from "../../../src/acp/capabilities.js";

describe("authMethods", () => {
  it("offers only the token method to clients that cannot run a terminal", () => {
    expect(authMethods(undefined).map((m) => m.id)).toEqual([TOKEN_AUTH_METHOD_ID]);
    expect(authMethods({}).map((m) => m.id)).toEqual([TOKEN_AUTH_METHOD_ID]);
    expect(authMethods({ auth: { terminal: false } }).map((m) => m.id)).toEqual([TOKEN_AUTH_METHOD_ID]);
  });

  it("adds the terminal setup method when clientCapabilities.auth.terminal is true", () => {
    const methods = authMethods({ auth: { terminal: true } });
    expect(methods.map((m) => m.id)).toEqual([TOKEN_AUTH_METHOD_ID, SETUP_AUTH_METHOD_ID]);
    expect(methods[1]).toMatchObject({ type: "terminal", id: "hermes-edge-setup", args: ["--setup"] });
    expect(methods[0]).not.toHaveProperty("type");
  });
});

describe("initializeResult", () => {
  it("answers protocol version 1 with the agent's info and capabilities", () => {
    expect(initializeResult(undefined)).toEqual({
      protocolVersion: 1,
      agentInfo: { name: "hermes-edge", version: pkg.version },
      agentCapabilities: {
        loadSession: true,
        auth: { logout: {} },
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true, acp: true },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {}, title: {}, status: {}, archive: {} },
      },
      authMethods: authMethods(undefined),
    });
  });

  it("includes the terminal method only for capable clients", () => {
    expect(initializeResult({ auth: { terminal: true } }).authMethods).toHaveLength(2);
    expect(initializeResult({ fs: { readTextFile: true } }).authMethods).toHaveLength(1);
  });
});
