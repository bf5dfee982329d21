import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, range, seqOf, sleep, TestClient, uniqueKey, turnOf } from "./acp-test-client.js";

const CWD = "/work/durable";

describe("durability", () => {
  it("resumes a turn a restart cut off while the model streamed: the call is made again from the stored history, the queue goes on", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 400, chunkDelayMs: 25 }, { text: "resumed answer" }]);
    const a = await TestClient.ready({}, { _meta: { hermes: { turnEnded: true } } });
    const sessionId = await a.newSession(CWD);
    void a.prompt(sessionId, `refactor the parser [[mock:${key}]]`);
    await a.next((f) => f.params?.update?.content?.text === " t2");
    void a.prompt(sessionId, "then update the docs");
    await a.next((f) => f.params?.update?.content?.text === " t3");
    // Stored before the restart: a prompt that had not reached the session is the client's to send again.
    await untilQueued(sessionId);
    // Every object is evicted, as in a deploy.
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready({}, { _meta: { hermes: { turnEnded: true } } });
    const res = await b.request("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    expect((res.result._meta as any).hermes.turn).toMatchObject({ state: "running", resumes: 1 });
    const first = await b.turnEnded(sessionId, 0, 30_000);
    expect(first.params.stopReason).toBe("end_turn");
    expect(first.params.error ?? undefined).toBeUndefined();
    const text = b.agentText(sessionId);
    // What streamed before the restart stays; one line says the turn continues after a restart.
    expect(text.startsWith("t0 t1 t2 t3")).toBe(true);
    expect(text.match(/restart/g)).toHaveLength(1);
    expect(text).toContain("resumed answer");
    // The queued prompt was kept and runs after the resumed turn.
    // It may have ended already, so the frames seen so far are checked first.
    for (let i = 0; i < 300 && b.turnsEnded(sessionId).length < 2; i++) await sleep(100);
    expect(b.turnsEnded(sessionId)).toHaveLength(2);
    expect(b.agentText(sessionId)).toContain("Echo: then update the docs");
    // The cut call, the resumed one, and the queued prompt's (its history carries the key).
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(3);
    const roles = (call: (typeof calls)[number]) => call.body.messages.map((m: { role: string }) => m.role);
    // The call is made again from the history as stored: the prompt once, nothing of the cut answer.
    expect(roles(calls[1])).toEqual(["system", "user"]);
    expect(roles(calls[2])).toEqual(["system", "user", "assistant", "user"]);
    expect(turnOf(await b.call("session/resume", { sessionId, cwd: CWD }))).toEqual({ state: "idle", lastStopReason: "end_turn" });
    a.close();
    b.close();
  }, 90_000);

  it("asks the editor again for a file read a restart left open, and counts its answer once", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: `${CWD}/a.ts` } }] }, { text: "done reading" }]);
    const a = await TestClient.ready({}, { fs: { readTextFile: true } });
    a.onRequest("fs/read_text_file", () => new Promise(() => undefined));
    const sessionId = await a.newSession(CWD);
    void a.prompt(sessionId, `read it [[mock:${key}]]`);
    await a.next((f) => f.method === "fs/read_text_file");
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready({}, { fs: { readTextFile: true }, _meta: { hermes: { turnEnded: true } } });
    let reads = 0;
    b.onRequest("fs/read_text_file", () => {
      reads += 1;
      return { content: "export const a = 1;" };
    });
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const ended = await b.turnEnded(sessionId, 0, 30_000);
    expect(ended.params.stopReason).toBe("end_turn");
    expect(reads).toBe(1);
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[1].body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(calls[1].body.messages[3].content).toContain("export const a = 1;");
    a.close();
    b.close();
  }, 60_000);

  it("tells the model a terminal command a restart cut off may or may not have run, and never runs it again", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ toolCalls: [{ id: "call_t", name: "terminal", arguments: { command: "npm test" } }] }, { text: "noted" }]);
    const caps = { terminal: true, fs: { readTextFile: true, writeTextFile: true } };
    const a = await TestClient.ready({}, caps);
    a.onRequest("session/request_permission", (params: any) => ({ outcome: { outcome: "selected", optionId: params.options.find((o: any) => o.kind === "allow_once").optionId } }));
    a.onRequest("terminal/create", () => new Promise(() => undefined));
    const sessionId = await a.newSession(CWD);
    void a.prompt(sessionId, `run the tests [[mock:${key}]]`);
    await a.next((f) => f.method === "terminal/create");
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready({}, { ...caps, _meta: { hermes: { turnEnded: true } } });
    let creates = 0;
    b.onRequest("terminal/create", () => {
      creates += 1;
      return new Promise(() => undefined);
    });
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    expect((await b.turnEnded(sessionId, 0, 30_000)).params.stopReason).toBe("end_turn");
    expect(creates).toBe(0);
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[1].body.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_t", content: expect.stringContaining("may or may not have completed") });
    a.close();
    b.close();
  }, 60_000);

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

/** Waits until the session has stored a prompt to run after the current one. */
async function untilQueued(sessionId: string): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(sessionId));
  const queued = () =>
    runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM prompts WHERE state = 'queued'`).one().n);
  for (let i = 0; i < 200 && (await queued()) === 0; i++) await sleep(25);
  expect(await queued()).toBe(1);
}
