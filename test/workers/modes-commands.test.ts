import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, TestClient, uniqueKey } from "./acp-test-client.js";

async function session(client: TestClient) {
  const res = await client.call("session/new", { cwd: "/work/project", mcpServers: [] });
  return res as { sessionId: string; modes: any; configOptions: any[] };
}

function option(options: any[], id: string) {
  return options.find((o) => o.id === id);
}

describe("modes and config options", () => {
  it("returns modes and mode/model/thought_level config options on session/new", async () => {
    const client = await TestClient.ready();
    const res = await session(client);
    expect(res.modes.currentModeId).toBe("default");
    expect(res.modes.availableModes.map((m: any) => m.id)).toEqual(["read_only", "default", "accept_edits", "dont_ask"]);
    expect(option(res.configOptions, "mode")).toMatchObject({ category: "mode", type: "select", currentValue: "default" });
    expect(option(res.configOptions, "model")).toMatchObject({ category: "model", currentValue: "gpt-4o-mini" });
    expect(option(res.configOptions, "reasoning_effort")).toMatchObject({ category: "thought_level", currentValue: "medium" });
    client.close();
  });

  it("keeps session/set_mode and the mode config option in sync and announces both", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const modeUpdate = client.next((f) => f.params?.update?.sessionUpdate === "current_mode_update");
    const configUpdate = client.next((f) => f.params?.update?.sessionUpdate === "config_option_update");
    expect(await client.call("session/set_mode", { sessionId, modeId: "accept_edits" })).toEqual({});
    expect((await modeUpdate).params.update.currentModeId).toBe("accept_edits");
    expect(option((await configUpdate).params.update.configOptions, "mode").currentValue).toBe("accept_edits");

    const res = await client.call("session/set_config_option", { sessionId, configId: "mode", value: "read_only" });
    expect(option(res.configOptions, "mode").currentValue).toBe("read_only");
    const loaded = await (await TestClient.ready()).call("session/load", { sessionId, cwd: "/work/project", mcpServers: [] });
    expect(loaded.modes.currentModeId).toBe("read_only");
    client.close();
  });

  it("rejects an unknown mode, model or option with -32602 naming what is allowed", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const badMode = await client.request("session/set_mode", { sessionId, modeId: "yolo" });
    expect(badMode.error.code).toBe(-32602);
    expect(JSON.stringify(badMode.error.data)).toContain("dont_ask");
    const badModel = await client.request("session/set_config_option", { sessionId, configId: "model", value: "gpt-nope" });
    expect(badModel.error.code).toBe(-32602);
    const badId = await client.request("session/set_config_option", { sessionId, configId: "temperature", value: "1" });
    expect(badId.error.code).toBe(-32602);
    const missing = await client.request("session/set_config_option", { sessionId, configId: "mode" });
    expect(missing.error.code).toBe(-32602);
    client.close();
  });

  it("uses the chosen reasoning effort and accepts the legacy session/set_model", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    await client.call("session/set_config_option", { sessionId, configId: "reasoning_effort", value: "high" });
    const legacy = await client.request("session/set_model", { sessionId, modelId: "gpt-nope" });
    expect(legacy.error.code).toBe(-32602);
    expect(await client.call("session/set_model", { sessionId, modelId: "gpt-4o-mini" })).toEqual({});
    const key = uniqueKey();
    await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `hi [[mock:${key}]]` }] });
    const [call] = await mockCalls(key);
    expect(call.body.reasoning_effort).toBe("high");
    expect(call.body.model).toBe("gpt-4o-mini");
    client.close();
  });

  it("returns -32002 when another tenant sets a mode", async () => {
    const alpha = await TestClient.ready();
    const { sessionId } = await session(alpha);
    const beta = await TestClient.ready({ token: "tok-beta" });
    const res = await beta.request("session/set_mode", { sessionId, modeId: "dont_ask" });
    expect(res.error.code).toBe(-32002);
  });
});

describe("slash commands", () => {
  async function run(client: TestClient, sessionId: string, text: string) {
    const before = client.frames.length;
    const res = await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    const reply = client.frames
      .slice(before)
      .filter((f) => f.params?.sessionId === sessionId && f.params?.update?.sessionUpdate === "agent_message_chunk")
      .map((f) => f.params.update.content.text)
      .join("");
    return { stopReason: res.stopReason, reply };
  }

  it("advertises the commands after session/new", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const update = await client.next((f) => f.params?.update?.sessionUpdate === "available_commands_update", 5000, 0);
    expect(update.params.sessionId).toBe(sessionId);
    expect(update.params.update.availableCommands.map((c: any) => c.name)).toEqual([
      "help", "model", "mode", "tools", "mcp", "context", "compress", "memory", "reset", "retry", "steer", "queue", "version",
    ]);
  });

  it("answers /help, /version, /tools and /context without calling the model", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    expect((await run(client, sessionId, "/help")).reply).toContain("/steer");
    expect((await run(client, sessionId, "/version")).reply).toMatch(/^hermes-edge \d+\.\d+\.\d+/);
    expect((await run(client, sessionId, "/tools")).reply).toMatch(/default mode/);
    expect((await run(client, sessionId, "/context")).reply).toContain("128,000");
  });

  it("/mode and /model show and switch, emitting the same updates as the methods", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    expect((await run(client, sessionId, "/mode")).reply).toContain("Mode: default");
    const modeUpdate = client.next((f) => f.params?.update?.sessionUpdate === "current_mode_update");
    expect((await run(client, sessionId, "/mode dont_ask")).reply).toBe("Mode set to dont_ask.");
    expect((await modeUpdate).params.update.currentModeId).toBe("dont_ask");
    expect((await run(client, sessionId, "/mode nonsense")).reply).toContain('Cannot set mode to "nonsense"');
    expect((await run(client, sessionId, "/model")).reply).toContain("gpt-4o-mini");
  });

  it("/context reports the tokens of the last model call", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok", usage: { prompt_tokens: 1200, completion_tokens: 34 } }]);
    await run(client, sessionId, `count [[mock:${key}]]`);
    expect((await run(client, sessionId, "/context")).reply).toBe("Context: 1,234 of 128,000 tokens used (1%).");
  });

  it("/reset clears what the model sees but keeps the session", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const key = uniqueKey();
    await run(client, sessionId, `remember this [[mock:${key}]]`);
    expect((await run(client, sessionId, "/reset")).reply).toContain("Context cleared");
    await run(client, sessionId, `fresh start [[mock:${key}]]`);
    const calls = await mockCalls(key);
    expect(calls[1].body.messages.map((m: any) => m.role)).toEqual(["system", "user"]);
  });

  it("/retry runs the last prompt again", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const key = uniqueKey();
    await run(client, sessionId, `do the thing [[mock:${key}]]`);
    const retried = await run(client, sessionId, "/retry");
    expect(retried.reply).toBe(`Echo: do the thing [[mock:${key}]]`);
    expect(await mockCalls(key)).toHaveLength(2);
    expect((await run(client, sessionId, "/retry")).stopReason).toBe("end_turn");
  });

  it("/steer reaches the running turn at its next model call; /queue runs after it", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    const key = uniqueKey();
    // The first call streams slowly and ends asking for an unknown tool, so a second model call follows.
    await mockScript(key, [
      { chunks: ["a", "b", "c", "d"], chunkDelayMs: 150, toolCalls: [{ name: "no_such_tool", arguments: {} }] },
      { text: "steered" },
    ]);
    const running = client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `work [[mock:${key}]]` }] });
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk" && f.params.update.content.text === "a");
    const steer = await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/steer use tabs" }] });
    expect(steer.stopReason).toBe("end_turn");
    const queued = await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/queue then this" }] });
    expect(queued.stopReason).toBe("end_turn");
    expect((await running).result.stopReason).toBe("end_turn");
    const calls = await mockCalls(key);
    expect(calls[1].body.messages.at(-1)).toMatchObject({ role: "user", content: "Guidance from the user while you work: use tabs" });
    await client.next((f) => f.method === "_hermes/turn_ended" && f.params._meta.hermes.requestId === null, 10_000, 0);
    // The session's first prompt carries the marker, so the queued turn's call is recorded under the same key.
    const after = await mockCalls(key);
    expect(after).toHaveLength(3);
    expect(after[2].body.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "then this" }] });
  });

  it("sends an unknown /word to the model as text", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await session(client);
    expect((await run(client, sessionId, "/frobnicate now")).reply).toBe("Echo: /frobnicate now");
  });
});
