import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { TestClient } from "./acp-test-client.js";

describe("initialize and authenticate", () => {
  it("answers protocol version 1, agentInfo, capabilities and the token auth method", async () => {
    const client = await TestClient.open();
    const result = await client.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(result.protocolVersion).toBe(1);
    expect(result.agentInfo).toEqual({ name: "hermes-edge", version: pkg.version });
    // What issue 2 requires; later features may add more capabilities.
    expect(result.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    });
    // A browser cannot read the upgrade's Acp-Connection-Id, so the result names it too.
    expect(result._meta).toEqual({ hermes: { connectionId: client.connectionId } });
    expect(result.authMethods).toEqual([
      {
        id: "hermes-edge-token",
        name: "hermes-edge token",
        description: "The token from HERMES_EDGE_TOKENS that the connection was opened with.",
      },
    ]);
    client.close();
  });

  it("answers protocol version 1 whatever version the client asks for", async () => {
    for (const asked of [0, 2, 99]) {
      const client = await TestClient.open();
      const result = await client.call("initialize", { protocolVersion: asked, clientCapabilities: {} });
      expect(result.protocolVersion).toBe(1);
      client.close();
    }
  });

  it("offers the terminal setup method only to clients that can run one", async () => {
    const client = await TestClient.open();
    const result = await client.call("initialize", { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
    expect(result.authMethods.map((m: { id: string }) => m.id)).toEqual(["hermes-edge-token", "hermes-edge-setup"]);
    expect(result.authMethods[1]).toMatchObject({ type: "terminal", args: ["--setup"] });
    client.close();
  });

  it("authenticates with the advertised token method", async () => {
    const client = await TestClient.ready();
    const res = await client.request("authenticate", { methodId: "hermes-edge-token" });
    expect(res.error).toBeUndefined();
    expect(res.result).toEqual({});
    client.close();
  });

  it("returns -32000 for an authentication method it did not advertise and keeps the connection", async () => {
    const client = await TestClient.ready();
    const res = await client.request("authenticate", { methodId: "oauth-magic" });
    expect(res.error.code).toBe(-32000);
    expect(res.error.message).toBe("Authentication required");
    expect(res.error.data.detail).toContain("hermes-edge-token");
    expect(await client.call("session/list", {})).toHaveProperty("sessions"); // still answering
    client.close();
  });

  it("requires initialize before authenticate", async () => {
    const client = await TestClient.open();
    const res = await client.request("authenticate", { methodId: "hermes-edge-token" });
    expect(res.error.code).toBe(-32600);
    client.close();
  });
});
