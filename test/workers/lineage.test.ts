import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, TestClient, uniqueKey } from "./acp-test-client.js";

const CWD = "/work/lineage";
const BIG_USAGE = { prompt_tokens: 120_000, completion_tokens: 10 };

async function prompt(client: TestClient, sessionId: string, text: string) {
  return client.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

function updatesOf(client: TestClient, sessionId: string, kind: string) {
  return client.updates(sessionId).filter((f) => f.params.update.sessionUpdate === kind);
}

async function rest(path: string, token = "tok-alpha") {
  return SELF.fetch(`http://hermes.test${path}`, { headers: { Authorization: `Bearer ${token}` } });
}

describe("compaction", () => {
  it("compacts when the history nears the window; the model then sees the summary, not the old turns", async () => {
    const client = await TestClient.ready();
    const { sessionId, _meta } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    expect(_meta.hermes.sessionProvenance).toMatchObject({
      acpSessionId: sessionId,
      currentHermesSessionId: sessionId,
      rootHermesSessionId: sessionId,
      parentHermesSessionId: null,
      sessionKind: "root",
      compressionDepth: 0,
      isContinuation: false,
    });
    const key = uniqueKey();
    await mockScript(key, [
      { text: "first answer", usage: BIG_USAGE },
      // The summary carries the marker on, so later calls still use this script.
      { text: `SUMMARY: user asked about lineage [[mock:${key}]]` },
      { text: "second answer" },
    ]);
    await prompt(client, sessionId, `first question [[mock:${key}]]`);
    await prompt(client, sessionId, "second question");
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(3);
    expect(calls[1].body.messages[0].content).toMatch(/compress a coding session/);
    expect(calls[1].body.tools).toBeUndefined();
    const seen = calls[2].body.messages;
    expect(seen.map((m: any) => m.role)).toEqual(["system", "user", "user"]);
    expect(seen[1].content).toContain("SUMMARY: user asked about lineage");
    expect(JSON.stringify(seen)).not.toContain("first answer");

    const info = updatesOf(client, sessionId, "session_info_update").at(-1)!;
    const prov = info.params.update._meta.hermes.sessionProvenance;
    expect(prov).toMatchObject({
      acpSessionId: sessionId,
      rootHermesSessionId: sessionId,
      parentHermesSessionId: sessionId,
      previousHermesSessionId: sessionId,
      sessionKind: "continuation",
      compressionDepth: 1,
      isContinuation: true,
      reason: "compression",
    });
    expect(prov.currentHermesSessionId).not.toBe(sessionId);
    expect(updatesOf(client, sessionId, "compaction_update")).toEqual([]);

    // The full history stays readable over REST.
    const history = (await (await rest(`/v1/sessions/${sessionId}/history`)).json()) as any;
    // Segment 0 keeps everything it had, the new prompt included; segment 1 starts with the summary.
    expect(history.messages.map((m: any) => m.segment)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(history.messages[1].message.content).toBe("first answer");
  });

  it("compacts between the model calls of a long tool loop once the context passes the threshold", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    const todo = { todos: [{ content: "read the parser", status: "in_progress" }] };
    await mockScript(key, [
      { text: "first answer" },
      // The second turn's first call fills the context, then asks for a tool.
      { toolCalls: [{ id: "call_big", name: "todo", arguments: todo }], usage: BIG_USAGE },
      { text: `SUMMARY: the first question was answered [[mock:${key}]]` },
      { text: "done after the tool" },
    ]);
    await prompt(client, sessionId, `first question [[mock:${key}]]`);
    expect(await prompt(client, sessionId, "second question")).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(4);
    expect(calls[2].body.messages[0].content).toMatch(/compress a coding session/);
    // The call after the tool sees the summary and this turn's prompt, tool call and result, not the first turn.
    const seen = calls[3].body.messages;
    expect(seen.map((m: any) => m.role)).toEqual(["system", "user", "user", "assistant", "tool"]);
    expect(seen[1].content).toContain("SUMMARY: the first question was answered");
    expect(seen[2].content).toEqual([{ type: "text", text: "second question" }]);
    expect(seen[3].tool_calls[0].id).toBe("call_big");
    expect(JSON.stringify(seen)).not.toContain("first answer");
    const info = updatesOf(client, sessionId, "session_info_update").at(-1)!;
    expect(info.params.update._meta.hermes.sessionProvenance).toMatchObject({ compressionDepth: 1, reason: "compression" });
  });

  it("/compress forces it; a client with the compaction capability gets compaction updates", async () => {
    const client = await TestClient.ready({}, { session: { compaction: {} } });
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    await mockScript(key, [{ text: "answer one" }, { chunks: ["SUM", "MARY"] }]);
    // /compress summarizes everything, so the marker in the first prompt reaches the summary call.
    await prompt(client, sessionId, `hello [[mock:${key}]]`);
    const res = await prompt(client, sessionId, "/compress");
    expect(res.stopReason).toBe("end_turn");
    const compaction = updatesOf(client, sessionId, "compaction_update").map((f) => f.params.update);
    expect(compaction.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(compaction[1].summary).toEqual([{ type: "text", text: "SUMMARY" }]);
    expect(compaction[1]._meta.hermes.sessionProvenance.compressionDepth).toBe(1);
    const chunks = updatesOf(client, sessionId, "compaction_summary_chunk").map((f) => f.params.update.content.text);
    expect(chunks.join("")).toBe("SUMMARY");
    expect(new Set(updatesOf(client, sessionId, "compaction_summary_chunk").map((f) => f.params.update.compactionId))).toEqual(
      new Set([compaction[0].compactionId]),
    );
  });

  it("/compress with nothing to compact says so", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    await prompt(client, sessionId, "/compress");
    expect(client.agentText(sessionId)).toContain("Nothing to compact yet");
  });

  it("a failing summary call leaves the session usable with its history intact", async () => {
    const client = await TestClient.ready({}, { session: { compaction: {} } });
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    await mockScript(key, [{ text: "kept answer" }, { status: 500 }, { text: "still works" }]);
    await prompt(client, sessionId, `start [[mock:${key}]]`);
    await prompt(client, sessionId, "/compress");
    const failed = updatesOf(client, sessionId, "compaction_update").map((f) => f.params.update);
    expect(failed.map((u) => u.status)).toEqual(["in_progress", "failed"]);
    expect(failed[1].error).toMatch(/500/);
    await prompt(client, sessionId, "next");
    const calls = await mockCalls(key);
    expect(calls.at(-1).body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(client.agentText(sessionId)).toContain("still works");
  });

  it("records provenance and lineage across two rotations", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    await mockScript(key, [{ text: "a1" }, { text: `S1 [[mock:${key}]]` }, { text: "a2" }, { text: `S2 [[mock:${key}]]` }]);
    await prompt(client, sessionId, `q1 [[mock:${key}]]`);
    await prompt(client, sessionId, "/compress");
    await prompt(client, sessionId, "q2");
    await prompt(client, sessionId, "/compress");
    const provs = updatesOf(client, sessionId, "session_info_update")
      .map((f) => f.params.update._meta?.hermes?.sessionProvenance)
      .filter(Boolean);
    expect(provs.map((p: any) => p.compressionDepth)).toEqual([1, 2]);
    expect(provs[1].parentHermesSessionId).toBe(provs[0].currentHermesSessionId);
    expect(provs[1].previousHermesSessionId).toBe(provs[0].currentHermesSessionId);
    expect(provs[1].rootHermesSessionId).toBe(sessionId);

    const other = await TestClient.ready();
    const loaded = await other.call("session/resume", { sessionId, cwd: CWD });
    expect(loaded._meta.hermes.sessionProvenance).toMatchObject({
      currentHermesSessionId: provs[1].currentHermesSessionId,
      compressionDepth: 2,
      sessionKind: "continuation",
    });

    const lineage = (await (await rest(`/v1/sessions/${sessionId}/lineage`)).json()) as any;
    expect(lineage.chain.map((s: any) => s.hermesSessionId)).toEqual([provs[1].currentHermesSessionId, provs[0].currentHermesSessionId, sessionId]);
    expect(lineage.chain.map((s: any) => [s.status, s.endReason])).toEqual([
      ["active", null],
      ["ended", "compression"],
      ["ended", "compression"],
    ]);
    expect((await rest(`/v1/sessions/${sessionId}/lineage`, "tok-beta")).status).toBe(404);
  });
});

describe("session/fork", () => {
  it("copies an idle session deeply: the fork has the history and the original never changes", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    await prompt(client, sessionId, `original question [[mock:${key}]]`);
    await client.call("session/set_mode", { sessionId, modeId: "accept_edits" });
    const fork = await client.call("session/fork", { sessionId, cwd: "/work/forked" });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.modes.currentModeId).toBe("accept_edits");
    expect(fork._meta.hermes.sessionProvenance).toMatchObject({
      acpSessionId: fork.sessionId,
      sessionKind: "fork",
      parentHermesSessionId: sessionId,
      rootHermesSessionId: sessionId,
    });
    await prompt(client, fork.sessionId, "fork-only question");
    await prompt(client, sessionId, "original follow-up");
    const calls = await mockCalls(key);
    const forkCall = calls.find((c: any) => JSON.stringify(c.body.messages).includes("fork-only question"));
    expect(forkCall.body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(forkCall.body.messages[0].content).toContain("/work/forked");
    const originalCall = calls.at(-1);
    expect(JSON.stringify(originalCall.body.messages)).not.toContain("fork-only question");

    const viewer = await TestClient.ready();
    await viewer.call("session/load", { sessionId: fork.sessionId, cwd: "/work/forked", mcpServers: [] });
    expect(viewer.agentText(fork.sessionId)).toContain(`Echo: original question [[mock:${key}]]`);
    expect(viewer.updates(fork.sessionId).every((f) => f.params.sessionId === fork.sessionId)).toBe(true);
    const listed = await viewer.call("session/list", {});
    expect(listed.sessions.find((s: any) => s.sessionId === fork.sessionId)._meta.hermes).toMatchObject({ kind: "fork", parentId: sessionId });
  });

  it("names a fork after its source, within the 200 characters of a title", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    await client.call("session/set_title", { sessionId, title: "t".repeat(200) });
    const fork = await client.call("session/fork", { sessionId, cwd: CWD });
    const listed = await client.call("session/list", { cwd: CWD });
    const title: string = listed.sessions.find((s: any) => s.sessionId === fork.sessionId).title;
    expect(title).toBe(`Fork: ${"t".repeat(194)}`);
    client.close();
  });

  it("does not copy a running turn", async () => {
    const client = await TestClient.ready();
    const { sessionId } = await client.call("session/new", { cwd: CWD, mcpServers: [] });
    const key = uniqueKey();
    await mockScript(key, [{ text: "done one" }, { chunks: ["slow", " reply", " here"], chunkDelayMs: 300 }]);
    await prompt(client, sessionId, `turn one [[mock:${key}]]`);
    const running = client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "turn two" }] });
    await client.next((f) => f.params?.update?.content?.text === "slow");
    const fork = await client.call("session/fork", { sessionId, cwd: CWD });
    await running;
    await prompt(client, fork.sessionId, "in the fork");
    const calls = await mockCalls(key);
    const forkCall = calls.at(-1);
    expect(JSON.stringify(forkCall.body.messages)).not.toContain("turn two");
    expect(forkCall.body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("answers -32002 for another tenant's session, exactly as for an unknown one", async () => {
    const alpha = await TestClient.ready();
    const { sessionId } = await alpha.call("session/new", { cwd: CWD, mcpServers: [] });
    const beta = await TestClient.ready({ token: "tok-beta" });
    const foreign = await beta.request("session/fork", { sessionId, cwd: CWD });
    const unknown = await beta.request("session/fork", { sessionId: crypto.randomUUID(), cwd: CWD });
    expect(foreign.error.code).toBe(-32002);
    expect(foreign.error).toEqual(unknown.error);
    const relative = await alpha.request("session/fork", { sessionId, cwd: "not/absolute" });
    expect(relative.error.code).toBe(-32602);
  });
});
