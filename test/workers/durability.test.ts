import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, range, seqOf, sleep, TestClient, uniqueKey, turnOf } from "./acp-test-client.js";

const CWD = "/work/durable";

describe("durability", () => {
  it("records a turn cut off by a restart as interrupted, keeps its prompt and tells the next client", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 400, chunkDelayMs: 25 }]);
    const a = await TestClient.ready();
    const sessionId = await a.newSession(CWD);
    const prompt = a.prompt(sessionId, `refactor the parser [[mock:${key}]]`);
    await a.next((f) => f.params?.update?.content?.text === " t2");
    const queued = a.prompt(sessionId, "then update the docs");
    await a.next((f) => f.params?.update?.content?.text === " t3");
    // Every object is evicted, as in a deploy.
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready();
    const { id, response } = b.start("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const res = await response;
    expect(turnOf(res.result)).toEqual({
      state: "idle",
      lastStopReason: "cancelled",
      interruptedPrompt: `refactor the parser [[mock:${key}]]\n\nthen update the docs`,
    });
    const end = b.frames.findIndex((f) => f.id === id && !f.method);
    const replay = b.logged(sessionId).filter((f) => b.frames.indexOf(f) < end);
    expect(replay.map(seqOf)).toEqual(range(1, replay.length));
    const text = b.agentText(sessionId);
    expect(text.startsWith("t0 t1 t2 t3")).toBe(true);
    expect(text).toContain("The service restarted while this turn was running");
    expect(text).toContain(`> refactor the parser [[mock:${key}]]`);
    // Both the running and the queued prompt are recorded as cut off, never silently lost.
    const ended = b.turnsEnded(sessionId);
    expect(ended.map((f) => f.params.stopReason)).toEqual(["cancelled", "cancelled"]);
    expect(ended.map((f) => f.params._meta.hermes)).toEqual([
      { requestId: prompt.id, connectionId: a.connectionId, interrupted: true },
      { requestId: queued.id, connectionId: a.connectionId, interrupted: true },
    ]);
    expect(await mockCalls(key)).toHaveLength(1);

    // The session goes on: the next prompt runs normally.
    const next = await b.prompt(sessionId, "again").response;
    expect(next.result).toEqual({ stopReason: "end_turn" });
    // Once a new turn has run, the interruption is no longer reported.
    expect(turnOf(await b.call("session/resume", { sessionId, cwd: CWD }))).toEqual({ state: "idle", lastStopReason: "end_turn" });
    a.close();
    b.close();
  });

  it("closes tool calls a restart left without results, so the next turn's model call is valid", async () => {
    const key = uniqueKey();
    // The model asks to read a file; the editor never answers, and then every object is evicted.
    await mockScript(key, [{ toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: `${CWD}/a.ts` } }] }, { text: "fresh" }]);
    const a = await TestClient.ready({}, { fs: { readTextFile: true } });
    a.onRequest("fs/read_text_file", () => new Promise(() => undefined));
    const sessionId = await a.newSession(CWD);
    void a.prompt(sessionId, `read it [[mock:${key}]]`);
    await a.next((f) => f.method === "fs/read_text_file");
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready();
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    expect((await b.prompt(sessionId, "try again").response).result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    const roles = calls[1].body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(calls[1].body.messages[3]).toEqual({
      role: "tool",
      tool_call_id: "call_1",
      content: "Not run: the service restarted during this turn.",
    });
    a.close();
    b.close();
  });

  it("replays a log longer than one delivery batch and one read page without losing or repeating a frame", async () => {
    const key = uniqueKey();
    const TOKENS = 1_150;
    await mockScript(key, [{ tokens: TOKENS }]);
    const a = await TestClient.ready();
    const sessionId = await a.newSession(CWD);
    expect((await a.prompt(sessionId, `many [[mock:${key}]]`, 30_000).response).result).toEqual({ stopReason: "end_turn" });
    const chunks = a.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "agent_message_chunk");
    expect(chunks).toHaveLength(TOKENS);
    const live = a.logged(sessionId).map(seqOf);
    for (let i = 1; i < live.length; i++) expect(live[i]).toBeGreaterThan(live[i - 1]!);

    const b = await TestClient.ready();
    const res = await b.request("session/load", { sessionId, cwd: CWD, mcpServers: [] }, 30_000);
    expect(turnOf(res.result).state).toBe("idle");
    const replay = b.logged(sessionId);
    expect(replay.map(seqOf)).toEqual(range(1, replay.length));
    expect(replay.length).toBe(live.length + 1);
    expect(b.agentText(sessionId)).toBe(a.agentText(sessionId));

    const c = await TestClient.ready();
    const resume = c.start("session/resume", { sessionId, cwd: CWD, _meta: { hermes: { afterSeq: 499 } } }, 30_000);
    await resume.response;
    const end = c.frames.findIndex((f) => f.id === resume.id && !f.method);
    const replayedToC = c.logged(sessionId).filter((f) => c.frames.indexOf(f) < end);
    expect(replayedToC.map(seqOf)).toEqual(range(500, replay.length));
    a.close();
    b.close();
    c.close();
  }, 60_000);
});
