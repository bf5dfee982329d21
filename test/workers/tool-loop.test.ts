import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ALL_TOOLS } from "../../src/tools/index.js";
import type { AnyTool } from "../../src/tools/tool.js";
import { mockCalls, mockScript, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

/** A tool defined by the test: the Worker runs in this isolate, so it sees the registry change. */
const shout: AnyTool = {
  name: "test_shout",
  description: "Upper-cases a word (test tool).",
  kind: "other",
  inputSchema: z.object({ word: z.string() }),
  title: (input: { word: string }) => `Shout ${input.word}`,
  run: async (input: { word: string }) => ({ output: input.word.toUpperCase() }),
};

beforeAll(() => {
  ALL_TOOLS.push(shout);
});
afterAll(() => {
  ALL_TOOLS.splice(ALL_TOOLS.indexOf(shout), 1);
});

async function session(): Promise<{ client: TestClient; sessionId: string }> {
  const client = await TestClient.ready();
  const sessionId = await client.newSession("/work/tools");
  return { client, sessionId };
}

const toolUpdates = (client: TestClient, sessionId: string) =>
  client
    .updates(sessionId)
    .map((f) => f.params.update)
    .filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");

describe("the tool-calling loop", () => {
  it("gives tool calls a server sent without ids ids of their own, never the same one twice in a session", async () => {
    const key = uniqueKey();
    const unnamed = (word: string) => ({ id: "", name: "test_shout", arguments: { word } });
    await mockScript(key, [{ toolCalls: [unnamed("a"), unnamed("b")] }, { toolCalls: [unnamed("c")] }, { text: "done" }]);
    const { client, sessionId } = await session();
    expect((await client.prompt(sessionId, `shout [[mock:${key}]]`).response).result).toEqual({ stopReason: "end_turn" });
    const ids = toolUpdates(client, sessionId).filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    // The results are matched to their calls by those ids in what the model is sent next.
    const calls = await mockCalls(key);
    const last = calls[2].body.messages as Frame[];
    expect(last.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content])).toEqual([[ids[0], "A"], [ids[1], "B"], [ids[2], "C"]]);
    client.close();
  });

  it("runs the tool the model calls, reports it, feeds the result back and finishes the turn", async () => {
    const key = uniqueKey();
    await mockScript(key, [
      { text: "Let me shout.", toolCalls: [{ id: "call_1", name: "test_shout", arguments: { word: "hello" } }] },
      { text: "It says HELLO." },
    ]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `shout hello [[mock:${key}]]`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });

    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[0].body.tools.map((t: Frame) => t.function.name)).toContain("test_shout");
    expect(calls[1].body.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: "Let me shout.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "test_shout", arguments: '{"word":"hello"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "HELLO" },
    ]);
    expect(toolUpdates(client, sessionId)).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "call_1", title: "Shout hello", kind: "other", status: "pending", rawInput: { word: "hello" }, locations: [] },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "HELLO" } }],
      },
    ]);
    expect(client.agentText(sessionId)).toBe("Let me shout.It says HELLO.");
    client.close();
  });

  it("tells the model about an unknown tool and goes on", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ toolCalls: [{ id: "call_x", name: "no_such_tool", arguments: {} }] }, { text: "Sorry." }]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `[[mock:${key}]]`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    const [update] = toolUpdates(client, sessionId);
    expect(update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_x", status: "failed" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    const toolMessage = calls[1].body.messages.at(-1);
    expect(toolMessage.role).toBe("tool");
    expect(toolMessage.content).toMatch(/^Error: Unknown tool "no_such_tool"/);
    client.close();
  });

  it("stops with max_turn_requests after 50 model calls", async () => {
    const key = uniqueKey();
    const loop = Array.from({ length: 50 }, (_, i) => ({ toolCalls: [{ id: `call_${i}`, name: "test_shout", arguments: { word: `w${i}` } }] }));
    await mockScript(key, loop);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `loop forever [[mock:${key}]]`, 30_000).response;
    expect(res.result).toEqual({ stopReason: "max_turn_requests" });
    expect(await mockCalls(key)).toHaveLength(50);
    expect(toolUpdates(client, sessionId).filter((u) => u.status === "completed")).toHaveLength(50);
    // The session stays usable, and its history answers every tool call.
    const next = await client.prompt(sessionId, "enough").response;
    expect(next.result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(51);
    const messages = calls[50].body.messages as Frame[];
    const asked = messages.flatMap((m) => (m.tool_calls ?? []).map((c: Frame) => c.id));
    const answered = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(asked).toHaveLength(50);
    expect(answered).toEqual(asked);
    client.close();
  }, 60_000);

  it("cancels while a tool-calling turn runs and answers every call in history", async () => {
    const key = uniqueKey();
    await mockScript(key, [
      { toolCalls: [{ id: "call_a", name: "test_shout", arguments: { word: "a" } }] },
      { tokens: 300, chunkDelayMs: 20 },
      { text: "after cancel" },
    ]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `[[mock:${key}]] go`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    client.notify("session/cancel", { sessionId });
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    expect((await client.prompt(sessionId, "next").response).result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(3);
    const roles = calls[2].body.messages.map((m: Frame) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    client.close();
  });
});
