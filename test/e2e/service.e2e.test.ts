/**
 * End to end as an editor uses it: `wrangler dev` on a free port, the mock
 * model, and the official SDK client over WebSocket. Every frame the service
 * sends is checked against the ACP v1 JSON schema.
 */
import { describe, expect, it } from "vitest";
import { startDevServer } from "../support/wrangler-dev.js";
import { useE2eService } from "./e2e-service.js";
import { agentText, connectSdk, type SdkClient } from "./sdk-client.js";

const TOKEN = "tok-e2e";
const e2e = useE2eService(TOKEN);

async function connect(): Promise<SdkClient> {
  const c = await connectSdk(e2e.server.wsUrl, TOKEN);
  e2e.clients.push(c);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return c;
}

describe("hermes-edge over wrangler dev with the official SDK client", () => {
  it("streams a turn, survives a dropped connection and loads the full history", async () => {
    e2e.mock.setScript("e2e-stream", [{ chunks: ["Hello", ", ", "edge", " world"], reasoning: "thinking it over", chunkDelayMs: 5 }]);
    const first = await connect();
    const { sessionId } = await first.agent.request("session/new", { cwd: "/home/dev/project", mcpServers: [] });
    const answer = await first.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Say hello [[mock:e2e-stream]]" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(agentText(first.updates, sessionId)).toBe("Hello, edge world");
    const kinds = first.updates.map((u) => u.update.sessionUpdate);
    expect(kinds).toContain("agent_thought_chunk");
    expect(kinds).toContain("usage_update");
    expect(kinds).toContain("session_info_update");
    expect(first.validator.errors).toEqual([]);
    const liveCount = first.updates.length;
    first.socket().terminate();

    const second = await connect();
    const listed = await second.agent.request("session/list", {});
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
    expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Say hello [[mock:e2e-stream]]");
    const loaded = await second.agent.request("session/load", { sessionId, cwd: "/home/dev/project", mcpServers: [] });
    expect((loaded._meta as any).hermes.turn).toMatchObject({ state: "idle", lastStopReason: "end_turn" });
    const replay = second.updates.filter((u) => u.sessionId === sessionId);
    expect(replay.find((u) => u.update.sessionUpdate === "user_message_chunk")?.update).toMatchObject({
      content: { type: "text", text: "Say hello [[mock:e2e-stream]]" },
    });
    expect(agentText(replay, sessionId)).toBe("Hello, edge world");
    // The live stream (which excluded the prompter's own user message) plus that message is the replay.
    expect(replay.length).toBe(liveCount + 1);
    const seqs = replay.map((u) => (u._meta as any).hermes.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(second.validator.errors).toEqual([]);
  });

  it("keeps history across a second prompt and sends it to the model", async () => {
    const c = await connect();
    const { sessionId } = await c.agent.request("session/new", { cwd: "/home/dev/project", mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first [[mock:e2e-history]]" }] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second" }] });
    const calls = e2e.mock.calls("e2e-history");
    expect(calls).toHaveLength(2);
    const roles = calls[1]!.body.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "user"]);
    expect(c.validator.errors).toEqual([]);
  });

  // The workers test of the same name needs its client's help to keep frame order (test/workers/frames-taken-in.ts);
  // workerd itself hands an object its frames in the order they came, which is what is relied on here.
  it("runs a prompt sent right after session/cancel instead of cancelling it", async () => {
    const c = await connect();
    for (let round = 0; round < 5; round++) {
      const key = `e2e-cancel-then-prompt-${round}`;
      e2e.mock.setScript(key, [{ tokens: 500, chunkDelayMs: 20 }]);
      const { sessionId } = await c.agent.request("session/new", { cwd: "/home/dev/project", mcpServers: [] });
      const running = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `long [[mock:${key}]]` }] });
      await expect.poll(() => agentText(c.updates, sessionId).length, { timeout: 10_000, interval: 5 }).toBeGreaterThan(0);
      void c.agent.notify("session/cancel", { sessionId });
      const next = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "right after" }] });
      expect((await running).stopReason).toBe("cancelled");
      expect((await next).stopReason).toBe("end_turn");
      expect(agentText(c.updates, sessionId).endsWith("Echo: right after")).toBe(true);
    }
    expect(c.validator.errors).toEqual([]);
  });
});

describe("without a model key", () => {
  it("answers a prompt with a message saying how to configure one", async () => {
    const keyless = await startDevServer({ vars: { HERMES_EDGE_TOKENS: `e2e:${TOKEN}` } });
    try {
      const c = await connectSdk(keyless.wsUrl, TOKEN);
      e2e.clients.push(c);
      await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await c.agent.request("session/new", { cwd: "/home/dev/project", mcpServers: [] });
      const answer = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello?" }] });
      expect(answer.stopReason).toBe("end_turn");
      expect(agentText(c.updates, sessionId)).toMatch(/No model is configured[\s\S]*OPENAI_API_KEY[\s\S]*\.dev\.vars/);
      const again = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] });
      expect(again.stopReason).toBe("end_turn");
      expect(c.validator.errors).toEqual([]);
    } finally {
      await keyless.stop();
    }
  });
});
