import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeService } from "./fake-service.js";
import { CLI, isolatedEnv } from "./proxy-process.js";

let service: FakeService;

beforeEach(async () => {
  service = await FakeService.start();
});

afterEach(async () => {
  await service.stop();
});

describe("with the official ACP SDK client", () => {
  it("runs a conversation through the proxy, across a dropped connection", async () => {
    const child = spawn(process.execPath, [CLI, "--url", service.url], { env: isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }), stdio: ["pipe", "pipe", "ignore"] });
    const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const texts: string[] = [];
    service.turn = { updates: 6, intervalMs: 30, cutAfter: 2, askPermission: true, stopReason: "end_turn" };

    const app = client({ name: "sdk-test-editor" })
      .onNotification(methods.client.session.update, ({ params }) => {
        if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") texts.push(params.update.content.text);
      })
      .onRequest(methods.client.session.requestPermission, () => ({ outcome: { outcome: "selected", optionId: "allow" } }));

    const stopReason = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentInfo?.name).toBe("hermes-edge");
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: "/project", mcpServers: [] });
      const response = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
      return response.stopReason;
    });

    expect(stopReason).toBe("end_turn");
    expect(texts).toEqual([1, 2, 3, 4, 5, 6].map((i) => `chunk ${i} (permission: allow)`));
    child.stdin.end();
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
  });
});
