/**
 * The tunnel to a proxy-hosted upstream agent through real connection and
 * session objects: the test client plays the proxy and, by hand, the upstream
 * agent behind it, answering the `_hermes/upstream/message` frames it gets.
 */
import { describe, expect, it } from "vitest";
import { TestClient, type Frame } from "./acp-test-client.js";

const UPSTREAMS = { _meta: { hermes: { turnEnded: true, upstreams: [{ id: "local", name: "Local Agent" }] } }, fs: { readTextFile: true } };
const modelValues = (result: Frame) => (result.configOptions as { id: string; options: { value: string }[] }[]).find((o) => o.id === "model")!.options.map((o) => o.value);
const tunnelled = (client: TestClient, method: string, from = 0) =>
  client.next((f) => f.method === "_hermes/upstream/message" && f.params.message.method === method, 10_000, from);

describe("_hermes/upstream/message", () => {
  it("offers acp:<id> only to sessions attached through the declaring connection", async () => {
    const proxy = await TestClient.ready({}, UPSTREAMS);
    const plain = await TestClient.ready();
    const cwd = `/work/${crypto.randomUUID()}`;
    expect(modelValues((await proxy.request("session/new", { cwd, mcpServers: [] })).result)).toContain("acp:local");
    expect(modelValues((await plain.request("session/new", { cwd, mcpServers: [] })).result)).not.toContain("acp:local");
    const sessionId = await proxy.newSession(cwd);
    await proxy.prompt(sessionId, "/model acp:local").response;
    await proxy.prompt(sessionId, "/model").response;
    expect(proxy.agentText(sessionId)).toContain("Model set to acp:local.");
    expect(proxy.agentText(sessionId)).toMatch(/Model: acp:local\. Available: .*acp:local/);
    proxy.close();
    plain.close();
  });

  it("carries a model call both ways, ignoring malformed, undeclared and foreign messages", async () => {
    const proxy = await TestClient.ready({}, UPSTREAMS);
    const sessionId = await proxy.newSession(`/work/${crypto.randomUUID()}`);
    expect((await proxy.request("session/set_config_option", { sessionId, configId: "model", value: "acp:local" })).error).toBeUndefined();
    const answer = (request: Frame, result: unknown) =>
      proxy.notify("_hermes/upstream/message", { upstreamId: "local", message: { jsonrpc: "2.0", id: request.params.message.id, result } });
    const { response } = proxy.prompt(sessionId, "hello through the tunnel");

    const init = await tunnelled(proxy, "initialize");
    expect(init.params.upstreamId).toBe("local");
    expect(init.params.message.params.clientCapabilities).toMatchObject({ fs: { readTextFile: true, writeTextFile: false }, terminal: false });
    // Dropped by the connection: malformed, and an upstream this connection never declared.
    proxy.notify("_hermes/upstream/message", { upstreamId: "local", message: { id: init.params.message.id, result: {} } });
    proxy.notify("_hermes/upstream/message", { upstreamId: "other", message: { jsonrpc: "2.0", id: init.params.message.id, result: { protocolVersion: 99 } } });
    // Dropped by the tunnel: an answer to an id it never sent.
    proxy.notify("_hermes/upstream/message", { upstreamId: "local", message: { jsonrpc: "2.0", id: 0, result: { protocolVersion: 99 } } });
    const before = proxy.frames.length;
    answer(init, { protocolVersion: 1, agentCapabilities: {} });
    const created = await tunnelled(proxy, "session/new", before);
    expect(created.params.message.params.cwd).toMatch(/^\/work\//);
    answer(created, { sessionId: "up-1" });
    const prompt = await tunnelled(proxy, "session/prompt");
    expect(prompt.params.message.params.sessionId).toBe("up-1");
    expect(prompt.params.message.params.prompt[0].text).toContain("hello through the tunnel");
    const update = (upstreamSession: string, text: string) =>
      proxy.notify("_hermes/upstream/message", {
        upstreamId: "local",
        message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: upstreamSession, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } },
      });
    update("someone-else", "not mine ");
    update("up-1", "tunnelled hi");
    answer(prompt, { stopReason: "end_turn" });
    expect((await response).result).toEqual({ stopReason: "end_turn" });
    expect(proxy.agentText(sessionId)).toBe("tunnelled hi");
    proxy.close();
  });
});
