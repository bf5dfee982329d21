// delegate_task end to end inside workerd: the parent session object spawns
// each task as its own session object, runs them through the pool, relays
// their tool calls and editor requests, and reports per-task results.
import { abortAllDurableObjects, env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, sleep, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

const CWD = "/work/deleg";
const FS_CAPS = { fs: { readTextFile: true, writeTextFile: true } };

function rest(path: string, init: { token?: string; method?: string } = {}): Promise<Response> {
  return SELF.fetch(`http://hermes.test${path}`, { method: init.method ?? "GET", headers: { Authorization: `Bearer ${init.token ?? "tok-alpha"}` } });
}

async function parent(caps: Frame = {}, token = "tok-alpha"): Promise<{ client: TestClient; sessionId: string }> {
  const client = await TestClient.ready({ token }, caps);
  return { client, sessionId: await client.newSession(CWD) };
}

/** A parent script: one delegate_task call with `args`, then a closing message. */
async function scriptParent(args: Frame, closing = "All delegated work is done."): Promise<string> {
  const key = uniqueKey("parent");
  await mockScript(key, [{ toolCalls: [{ id: "call_delegate", name: "delegate_task", arguments: args }] }, { text: closing }]);
  return key;
}

/** A child script; its key goes into the task's goal, which the child's system prompt and prompt carry. */
async function scriptChild(steps: Frame[]): Promise<string> {
  const key = uniqueKey("child");
  await mockScript(key, steps);
  return key;
}

const goal = (key: string, text = "do the task") => `${text} [[mock:${key}]]`;

/** The delegate_task call's updates in the parent session, in order. */
function delegateUpdates(client: TestClient, sessionId: string): Frame[] {
  return client
    .updates(sessionId)
    .map((f) => f.params.update)
    .filter((u) => u.toolCallId === "call_delegate");
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function finalResults(client: TestClient, sessionId: string): any[] {
  const done = delegateUpdates(client, sessionId).find((u) => u.status === "completed");
  if (!done) throw new Error("the delegate_task call did not complete");
  return done.rawOutput.results;
}

/** Resolves once the progress view shows `n` tasks running. */
function running(client: TestClient, sessionId: string, n: number): Promise<Frame> {
  return client.next(
    (f) =>
      f.params?.sessionId === sessionId &&
      f.params?.update?.toolCallId === "call_delegate" &&
      (f.params.update._meta?.hermes?.subagents ?? []).filter((s: Frame) => s.state === "running").length >= n,
  );
}

describe("delegate_task", () => {
  it("runs a batch in parallel sessions; a failing task is reported as failed and its siblings complete", async () => {
    const ok1 = await scriptChild([{ text: "First task: found 3 callers." }]);
    const bad = await scriptChild([{ status: 400, text: "the request was malformed" }]);
    const ok2 = await scriptChild([{ text: "Third task: tests pass." }]);
    const key = await scriptParent({ tasks: [{ goal: goal(ok1) }, { goal: goal(bad) }, { goal: goal(ok2), context: "use npm test" }] });
    const { client, sessionId } = await parent();
    const res = await client.prompt(sessionId, `[[mock:${key}]] split the work`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });

    const results = finalResults(client, sessionId);
    expect(results.map((r) => [r.task_index, r.status])).toEqual([
      [0, "completed"],
      [1, "failed"],
      [2, "completed"],
    ]);
    expect(results[0]).toMatchObject({ summary: "First task: found 3 callers.", api_calls: 1, tools_used: [] });
    expect(results[0].tokens.total).toBeGreaterThan(0);
    expect(results[0].duration_seconds).toBeGreaterThanOrEqual(0);
    expect(results[1].summary).toMatch(/the request was malformed/);
    expect(new Set(results.map((r) => r.subagent_id)).size).toBe(3);

    // The parent model reads every result; the child received its focused prompt and context.
    const parentCalls = await mockCalls(key);
    const toolMessage = parentCalls[1].body.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "call_delegate" });
    expect(toolMessage.content).toMatch(/^3 delegated tasks: 2 completed, 1 failed\./);
    const [childCall] = await mockCalls(ok2);
    expect(childCall.body.model).toBe(parentCalls[0].body.model);
    expect(results[2].model).toBe(parentCalls[0].body.model);
    expect(childCall.body.messages[0].content).toContain("## Context from the parent agent\n\nuse npm test");
    expect(childCall.body.messages.slice(1)).toEqual([{ role: "user", content: [{ type: "text", text: goal(ok2) }] }]);

    // The editor saw one line per task.
    const lines = delegateUpdates(client, sessionId).at(-1)!.content[0].content.text.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^✓ \[1\] .*completed in [\d.]+ s — First task: found 3 callers\.$/);
    expect(lines[1]).toMatch(/^✗ \[2\] .*failed/);
    client.close();
  });

  it("never runs more children at once than the cap (3); the others wait and complete", async () => {
    const keys = await Promise.all([0, 1, 2, 3, 4].map((i) => scriptChild([{ text: `child ${i} done`, firstTokenDelayMs: 800 }])));
    const key = await scriptParent({ tasks: keys.map((k, i) => ({ goal: goal(k, `task ${i}`) })) });
    const { client, sessionId } = await parent();
    const res = await client.prompt(sessionId, `[[mock:${key}]] five tasks`, 20_000).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(finalResults(client, sessionId).map((r) => r.status)).toEqual(Array(5).fill("completed"));

    // Each child made one model call; count how many were in flight at each start.
    const spans = (await Promise.all(keys.map((k) => mockCalls(k)))).map((calls) => {
      expect(calls).toHaveLength(1);
      return { at: calls[0].at as number, endAt: calls[0].endAt as number };
    });
    const overlap = (t: number) => spans.filter((s) => s.at <= t && t < s.endAt).length;
    const peak = Math.max(...spans.map((s) => overlap(s.at)));
    expect(peak).toBe(3);
    // The progress view showed the two extra tasks waiting.
    const waiting = delegateUpdates(client, sessionId).some(
      (u) => (u._meta?.hermes?.subagents ?? []).filter((t: Frame) => t.state === "queued").length === 2,
    );
    expect(waiting).toBe(true);
    client.close();
  });

  it("a child reads a file through the parent's connection, in the parent's name, and its tool call shows in the parent", async () => {
    const child = await scriptChild([
      { toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: `${CWD}/notes.txt` } }] },
      { text: "The notes say hello." },
    ]);
    const key = await scriptParent({ goal: goal(child, "read the notes") });
    const { client, sessionId } = await parent(FS_CAPS);
    const reads: Frame[] = [];
    client.onRequest("fs/read_text_file", (params) => {
      reads.push(params);
      return { content: "hello from the editor" };
    });
    const res = await client.prompt(sessionId, `[[mock:${key}]] go`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(reads).toEqual([{ sessionId, path: `${CWD}/notes.txt` }]);

    const [result] = finalResults(client, sessionId);
    expect(result).toMatchObject({ status: "completed", summary: "The notes say hello.", api_calls: 2, tools_used: ["read_file"] });
    const childCalls = await mockCalls(child);
    expect(childCalls[1].body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_read", content: expect.stringContaining("hello from the editor") });

    const relayed = client
      .updates(sessionId)
      .map((f) => f.params.update)
      .filter((u) => u.toolCallId === `${result.subagent_id}/call_read`);
    expect(relayed.map((u) => [u.sessionUpdate, u.status])).toEqual([
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
      ["tool_call_update", "completed"],
    ]);
    for (const u of relayed) expect(u._meta.hermes).toEqual({ subagentId: result.subagent_id, parentToolCallId: "call_delegate" });
    expect(relayed[0]).toMatchObject({ kind: "read", title: `Read ${CWD}/notes.txt` });
    // The progress line named the child's current tool while it ran.
    const progress = delegateUpdates(client, sessionId).map((u) => u.content?.[0]?.content?.text ?? "");
    expect(progress.some((t) => /^▶ \[1\] read the notes \[\[mock:.*\]\]: Read \/work\/deleg\/notes\.txt$/.test(t))).toBe(true);
    client.close();
  });

  it("a child's permission request reaches the editor labelled, in the parent's name, following the parent's mode", async () => {
    const writeSteps = () => [
      { toolCalls: [{ id: "call_write", name: "write_file", arguments: { path: `${CWD}/out.txt`, content: "new\n" } }] },
      { text: "Wrote out.txt." },
    ];
    const child = await scriptChild(writeSteps());
    const key = await scriptParent({ goal: goal(child, "write the output") });
    const { client, sessionId } = await parent(FS_CAPS);
    const asked: Frame[] = [];
    const writes: Frame[] = [];
    client.onRequest("fs/read_text_file", () => ({ content: "old\n" }));
    client.onRequest("fs/write_text_file", (p) => {
      writes.push(p);
      return null;
    });
    client.onRequest("session/request_permission", (p) => {
      asked.push(p);
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
    expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
    const [result] = finalResults(client, sessionId);
    expect(result.status).toBe("completed");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId,
      toolCall: {
        toolCallId: `${result.subagent_id}/call_write`,
        title: expect.stringMatching(/^\[sub-agent 1: write the output \[\[mock:.*\] Write \/work\/deleg\/out\.txt$/),
        kind: "edit",
      },
      _meta: { hermes: { subagentId: result.subagent_id, parentToolCallId: "call_delegate" } },
    });
    expect(writes).toEqual([{ sessionId, path: `${CWD}/out.txt`, content: "new\n" }]);

    // In accept_edits the parent's children write without asking.
    const child2 = await scriptChild(writeSteps());
    const key2 = await scriptParent({ goal: goal(child2, "write again") });
    const second = await client.newSession(CWD);
    await client.call("session/set_mode", { sessionId: second, modeId: "accept_edits" });
    expect((await client.prompt(second, `[[mock:${key2}]] again`).response).result).toEqual({ stopReason: "end_turn" });
    expect(finalResults(client, second)[0].status).toBe("completed");
    expect(asked).toHaveLength(1);
    expect(writes).toHaveLength(2);
    expect(writes[1]?.sessionId).toBe(second);
    client.close();
  });

  it("with HERMES_SUBAGENT_APPROVAL=deny a child's edit is refused without asking the editor", async () => {
    const previous = env.HERMES_SUBAGENT_APPROVAL;
    env.HERMES_SUBAGENT_APPROVAL = "deny";
    try {
      const child = await scriptChild([
        { toolCalls: [{ id: "call_write", name: "write_file", arguments: { path: `${CWD}/out.txt`, content: "x" } }] },
        { text: "Could not write." },
      ]);
      const key = await scriptParent({ goal: goal(child, "write") });
      const { client, sessionId } = await parent(FS_CAPS);
      const asked: Frame[] = [];
      client.onRequest("fs/read_text_file", () => ({ content: "old" }));
      client.onRequest("session/request_permission", (p) => {
        asked.push(p);
        return { outcome: { outcome: "cancelled" } };
      });
      expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
      expect(asked).toEqual([]);
      const childCalls = await mockCalls(child);
      expect(childCalls[1].body.messages.at(-1).content).toMatch(/was denied: sub-agents may not ask for permission .*HERMES_SUBAGENT_APPROVAL=deny/);
      client.close();
    } finally {
      env.HERMES_SUBAGENT_APPROVAL = previous;
    }
  });

  it("cancelling the parent turn interrupts every child, running or waiting", async () => {
    const keys = await Promise.all([0, 1, 2, 3].map(() => scriptChild([{ tokens: 400, chunkDelayMs: 25 }])));
    const key = await scriptParent({ tasks: keys.map((k, i) => ({ goal: goal(k, `slow ${i}`) })) });
    const { client, sessionId } = await parent();
    const prompt = client.prompt(sessionId, `[[mock:${key}]] go`);
    await running(client, sessionId, 3);
    const started = Date.now();
    client.notify("session/cancel", { sessionId });
    expect((await prompt.response).result).toEqual({ stopReason: "cancelled" });
    expect(Date.now() - started).toBeLessThan(5_000);
    const results = finalResults(client, sessionId);
    expect(results.map((r) => r.status)).toEqual(["interrupted", "interrupted", "interrupted", "interrupted"]);
    expect(results[3].summary).toBe("Interrupted before it started.");
    const listed = (await (await rest(`/v1/sessions/${sessionId}/subagents`)).json()) as { subagents: Frame[] };
    expect(listed.subagents.map((s) => s.status)).toEqual(["interrupted", "interrupted", "interrupted"]);
    client.close();
  });

  it("_hermes/subagents/interrupt stops one child and its siblings go on", async () => {
    const slow = await scriptChild([{ tokens: 400, chunkDelayMs: 25 }]);
    const steady = await scriptChild([{ text: "steady finished", firstTokenDelayMs: 1_500 }]);
    const key = await scriptParent({ tasks: [{ goal: goal(slow, "slow") }, { goal: goal(steady, "steady") }] });
    const { client, sessionId } = await parent();
    const prompt = client.prompt(sessionId, `[[mock:${key}]] go`);
    const progress = await running(client, sessionId, 2);
    const subagentId = progress.params.update._meta.hermes.subagents[0].subagentId as string;

    const other = await TestClient.ready({ token: "tok-beta" });
    expect((await other.request("_hermes/subagents/interrupt", { sessionId, subagentId })).error).toMatchObject({ code: -32002 });
    expect((await client.request("_hermes/subagents/interrupt", { sessionId })).error).toMatchObject({ code: -32602 });
    expect((await client.request("_hermes/subagents/interrupt", { sessionId, subagentId: "nope" })).error).toMatchObject({ code: -32002 });
    expect(await client.call("_hermes/subagents/interrupt", { sessionId, subagentId })).toMatchObject({ interrupted: subagentId });

    expect((await prompt.response).result).toEqual({ stopReason: "end_turn" });
    const results = finalResults(client, sessionId);
    expect(results.map((r) => r.status)).toEqual(["interrupted", "completed"]);
    expect(results[1].summary).toBe("steady finished");
    other.close();
    client.close();
  });

  it("a per-task timeout stops the child with status timeout", async () => {
    const slow = await scriptChild([{ tokens: 400, chunkDelayMs: 25 }]);
    const key = await scriptParent({ tasks: [{ goal: goal(slow, "slow"), timeout_seconds: 0.5 }] });
    const { client, sessionId } = await parent();
    expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
    const [result] = finalResults(client, sessionId);
    expect(result.status).toBe("timeout");
    expect(result.summary).toMatch(/^Stopped: the time limit was reached\./);
    expect(result.duration_seconds).toBeLessThan(3);
    client.close();
  });

  it("_hermes/subagents/pause holds new spawns until resume", async () => {
    const child = await scriptChild([{ text: "ran after resume" }]);
    const key = await scriptParent({ goal: goal(child, "wait for it") });
    const { client, sessionId } = await parent();
    expect(await client.call("_hermes/subagents/pause", { sessionId })).toMatchObject({ paused: true });
    const prompt = client.prompt(sessionId, `[[mock:${key}]] go`);
    await client.next((f) => f.params?.update?.toolCallId === "call_delegate" && f.params.update._meta?.hermes?.subagents?.[0]?.state === "queued");
    await sleep(300);
    expect(await mockCalls(child)).toHaveLength(0);
    const resumed = await rest(`/v1/sessions/${sessionId}/subagents/resume`, { method: "POST" });
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ paused: false });
    expect((await prompt.response).result).toEqual({ stopReason: "end_turn" });
    expect(finalResults(client, sessionId)[0]).toMatchObject({ status: "completed", summary: "ran after resume" });
    client.close();
  });
});

describe("watching a running sub-agent", () => {
  it("the same tenant can load it mid-run and watch it; it takes no prompts then, and session/cancel stops it", async () => {
    const slow = await scriptChild([{ tokens: 400, chunkDelayMs: 25 }]);
    const key = await scriptParent({ goal: goal(slow, "take your time") });
    const { client, sessionId } = await parent();
    const prompt = client.prompt(sessionId, `[[mock:${key}]] go`);
    const progress = await running(client, sessionId, 1);
    const childId: string = progress.params.update._meta.hermes.subagents[0].subagentId;

    const watcher = await TestClient.ready();
    await watcher.call("session/load", { sessionId: childId, cwd: CWD, mcpServers: [] });
    const live = await watcher.next((f) => f.params?.sessionId === childId && f.params?.update?.sessionUpdate === "agent_message_chunk");
    expect(live.params.update.content.text).toMatch(/^ ?t\d+/);
    const refused = await watcher.request("session/prompt", { sessionId: childId, prompt: [{ type: "text", text: "hi" }] });
    expect(refused.error).toMatchObject({ code: -32600, data: { detail: expect.stringMatching(/working on its delegated task/) } });

    watcher.notify("session/cancel", { sessionId: childId });
    expect((await prompt.response).result).toEqual({ stopReason: "end_turn" });
    expect(finalResults(client, sessionId)[0]).toMatchObject({ status: "interrupted", subagent_id: childId });
    await watcher.turnEnded(childId);
    for (const c of [client, watcher]) c.close();
  });
});

describe("nested delegation", () => {
  it("with HERMES_MAX_SPAWN_DEPTH=2 an orchestrator child delegates; the grandchild reaches the editor through both parents", async () => {
    const previous = env.HERMES_MAX_SPAWN_DEPTH;
    env.HERMES_MAX_SPAWN_DEPTH = "2";
    try {
      const grandchild = await scriptChild([
        { toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: `${CWD}/deep.txt` } }] },
        { text: "Grandchild read it." },
      ]);
      const orchestrator = await scriptChild([
        { toolCalls: [{ id: "call_inner", name: "delegate_task", arguments: { goal: goal(grandchild, "read deep.txt") } }] },
        { text: "Orchestrator done." },
      ]);
      const key = await scriptParent({ goal: goal(orchestrator, "orchestrate"), role: "orchestrator" });
      const { client, sessionId } = await parent(FS_CAPS);
      const reads: Frame[] = [];
      client.onRequest("fs/read_text_file", (p) => {
        reads.push(p);
        return { content: "deep content" };
      });
      expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
      expect(reads).toEqual([{ sessionId, path: `${CWD}/deep.txt` }]);

      const [result] = finalResults(client, sessionId);
      expect(result).toMatchObject({ status: "completed", summary: "Orchestrator done.", tools_used: ["delegate_task"] });
      const orchestratorCalls = await mockCalls(orchestrator);
      expect(orchestratorCalls[0].body.tools.map((t: Frame) => t.function.name)).toContain("delegate_task");
      const innerOutput: string = orchestratorCalls[1].body.messages.at(-1).content;
      const inner = JSON.parse(innerOutput.slice(innerOutput.indexOf("\n") + 1));
      expect(inner.results[0]).toMatchObject({ status: "completed", summary: "Grandchild read it." });
      const grandchildId: string = inner.results[0].subagent_id;
      // The grandchild (depth 2) may not delegate any further.
      expect((await mockCalls(grandchild))[0].body.tools.map((t: Frame) => t.function.name)).not.toContain("delegate_task");

      // The grandchild's read shows in the root session, nested under the orchestrator's delegate call.
      const relayed = client
        .updates(sessionId)
        .map((f) => f.params.update)
        .find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === `${result.subagent_id}/${grandchildId}/call_read`);
      expect(relayed?._meta.hermes).toEqual({ subagentId: grandchildId, parentToolCallId: `${result.subagent_id}/call_inner` });
      const listed = (await (await rest(`/v1/sessions/${result.subagent_id}/subagents`)).json()) as { subagents: Frame[] };
      expect(listed.subagents).toEqual([expect.objectContaining({ sessionId: grandchildId, status: "completed", parentId: result.subagent_id, rootId: sessionId })]);
      client.close();
    } finally {
      env.HERMES_MAX_SPAWN_DEPTH = previous;
    }
  });
});

describe("what a sub-agent may use", () => {
  const toolNames = (call: Frame) => (call.body.tools ?? []).map((t: Frame) => t.function.name) as string[];
  const ELICIT_FS_CAPS = { ...FS_CAPS, elicitation: { form: {} } };

  it("a child gets the parent's tools minus delegate_task, memory and clarify, even as an orchestrator at depth 1", async () => {
    const leaf = await scriptChild([
      {
        toolCalls: [
          { id: "call_nested", name: "delegate_task", arguments: { goal: "deeper" } },
          { id: "call_mem", name: "memory", arguments: { action: "add", content: "a child's note" } },
          { id: "call_ask", name: "clarify", arguments: { question: "May I?" } },
        ],
      },
      { text: "Could not delegate, remember or ask." },
    ]);
    const orchestrator = await scriptChild([{ text: "orchestrated nothing" }]);
    const key = await scriptParent({ tasks: [{ goal: goal(leaf, "leaf") }, { goal: goal(orchestrator, "boss"), role: "orchestrator" }] });
    const { client, sessionId } = await parent(ELICIT_FS_CAPS);
    expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });

    const parentTools = toolNames((await mockCalls(key))[0]);
    expect(parentTools).toEqual(expect.arrayContaining(["read_file", "write_file", "memory", "clarify", "session_search", "delegate_task"]));
    for (const k of [leaf, orchestrator]) {
      const subagentTools = toolNames((await mockCalls(k))[0]);
      expect(subagentTools).toEqual(parentTools.filter((n) => !["delegate_task", "memory", "clarify"].includes(n)));
    }
    const leafCalls = await mockCalls(leaf);
    expect(leafCalls[0].body.messages[0].content).toContain("you cannot delegate it further");
    const read = Object.fromEntries(leafCalls[1].body.messages.filter((m: Frame) => m.role === "tool").map((m: Frame) => [m.tool_call_id, m.content]));
    expect(read.call_nested).toMatch(/^Error: Unknown tool "delegate_task"/);
    expect(read.call_mem).toMatch(/^Error: Unknown tool "memory"/);
    expect(read.call_ask).toMatch(/^Error: Unknown tool "clarify"/);
    expect(client.frames.filter((f) => f.method === "elicitation/create")).toEqual([]);
    const memory = await (await rest(`/v1/memory?cwd=${encodeURIComponent(CWD)}`)).json();
    expect((memory as { entries: string[] }).entries).not.toContain("a child's note");
    expect(finalResults(client, sessionId).map((r) => r.status)).toEqual(["completed", "completed"]);
    client.close();
  });
});

describe("sub-agents are sessions", () => {
  it("are listed under their parent with status, kept out of session/list, and loadable by the same tenant only", async () => {
    const ok = await scriptChild([{ text: "Listed child finished its work." }]);
    const bad = await scriptChild([{ status: 400, text: "nope" }]);
    const key = await scriptParent({ tasks: [{ goal: goal(ok, "list me") }, { goal: goal(bad, "fail me") }] });
    const { client, sessionId } = await parent();
    expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
    const results = finalResults(client, sessionId);
    const okId: string = results[0].subagent_id;
    const badId: string = results[1].subagent_id;

    const res = await rest(`/v1/sessions/${sessionId}/subagents`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { sessionId: string; subagents: Frame[] };
    expect(body.sessionId).toBe(sessionId);
    expect(body.subagents.map((s) => [s.sessionId, s.status])).toEqual(
      expect.arrayContaining([
        [okId, "completed"],
        [badId, "failed"],
      ]),
    );
    expect(body.subagents).toHaveLength(2);
    expect(body.subagents.find((s) => s.sessionId === okId)).toMatchObject({ parentId: sessionId, rootId: sessionId, cwd: CWD, title: `Sub-agent 1: ${goal(ok, "list me")}` });
    const row = (await (await rest(`/v1/sessions/${okId}`)).json()) as Frame;
    expect(row._meta.hermes).toMatchObject({ kind: "subagent", parentId: sessionId, rootId: sessionId });

    const listed = await client.call("session/list", {});
    const ids = listed.sessions.map((s: Frame) => s.sessionId);
    expect(ids).toContain(sessionId);
    expect(ids).not.toContain(okId);
    expect(((await (await rest("/v1/sessions")).json()) as { sessions: Frame[] }).sessions.map((s) => s.sessionId)).not.toContain(okId);

    // A finished sub-agent is not running anywhere: session/status says saved.
    expect(await client.call("session/status", { sessionId: okId })).toEqual({ status: "saved" });

    // The same tenant can load a child and read its whole run.
    const watcher = await TestClient.ready();
    const loaded = await watcher.request("session/load", { sessionId: okId, cwd: CWD, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    expect(loaded.result._meta.hermes.sessionProvenance).toMatchObject({ sessionKind: "subagent", parentHermesSessionId: sessionId, rootHermesSessionId: sessionId });
    const replay = watcher.updates(okId).map((f) => f.params.update);
    expect(replay.find((u) => u.sessionUpdate === "user_message_chunk")?.content.text).toBe(goal(ok, "list me"));
    expect(watcher.agentText(okId)).toBe("Listed child finished its work.");
    expect(watcher.turnsEnded(okId)).toHaveLength(1);

    // Another tenant sees nothing of them.
    const beta = await TestClient.ready({ token: "tok-beta" });
    expect((await beta.request("session/load", { sessionId: okId, cwd: CWD, mcpServers: [] })).error).toMatchObject({ code: -32002 });
    expect((await rest(`/v1/sessions/${sessionId}/subagents`, { token: "tok-beta" })).status).toBe(404);
    expect((await rest(`/v1/sessions/${okId}`, { token: "tok-beta" })).status).toBe(404);
    expect((await rest(`/v1/sessions/${okId}/history`, { token: "tok-beta" })).status).toBe(404);
    expect((await rest(`/v1/sessions/${sessionId}/subagents/pause`, { token: "tok-beta", method: "POST" })).status).toBe(404);
    expect((await rest(`/v1/sessions/${sessionId}/subagents/${okId}/interrupt`, { token: "tok-beta", method: "POST" })).status).toBe(404);
    expect((await beta.request("_hermes/subagents/pause", { sessionId })).error).toMatchObject({ code: -32002 });
    // A finished sub-agent cannot be interrupted; the parent's own tenant gets a 404 too.
    expect((await rest(`/v1/sessions/${sessionId}/subagents/${okId}/interrupt`, { method: "POST" })).status).toBe(404);
    for (const c of [client, watcher, beta]) c.close();
  });
});

describe("a restart in the middle of a delegation", () => {
  it("resumes the sub-agent's own turn, and the parent's delegation waits for it again and reads its result once", async () => {
    const child = await scriptChild([{ tokens: 400, chunkDelayMs: 25 }, { text: "child report after the restart" }]);
    const key = await scriptParent({ goal: goal(child, "write a long report") });
    const { client: a, sessionId } = await parent();
    void a.prompt(sessionId, `delegate [[mock:${key}]]`).response;
    await running(a, sessionId, 1);
    await sleep(200);
    // Every object is evicted, as in a deploy: each one that had a running turn resumes it.
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready({}, { _meta: { hermes: { turnEnded: true } } });
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const ended = await b.turnEnded(sessionId, 0, 60_000);
    expect(ended.params.stopReason).toBe("end_turn");
    expect(b.agentText(sessionId)).not.toContain("recorded as interrupted");
    // The child's in-flight model call was made again, once; the parent read one result for the one task.
    expect(await mockCalls(child)).toHaveLength(2);
    const parentCalls = await mockCalls(key);
    expect(parentCalls).toHaveLength(2);
    const tools = parentCalls[1].body.messages.filter((m: Frame) => m.role === "tool");
    expect(tools).toHaveLength(1);
    expect(tools[0].content).toContain("1 delegated task: 1 completed.");
    expect(tools[0].content.match(/child report after the restart/g)).toHaveLength(1);
    const list = (await (await rest(`/v1/sessions/${sessionId}/subagents`)).json()) as { subagents: Frame[] };
    expect(list.subagents.map((s) => s.status)).toEqual(["completed"]);
    // The session stays usable.
    expect((await b.prompt(sessionId, "and now?").response).result).toEqual({ stopReason: "end_turn" });
    a.close();
    b.close();
  });

  it("gives the parent a sub-agent's real outcome in words when its turn may not resume again", async () => {
    const child = await scriptChild([{ tokens: 400, chunkDelayMs: 25 }, { text: "never reached" }]);
    const key = await scriptParent({ goal: goal(child, "write a long report") });
    const { client: a, sessionId } = await parent();
    void a.prompt(sessionId, `delegate [[mock:${key}]]`).response;
    const started = await running(a, sessionId, 1);
    const childId = started.params.update._meta.hermes.subagents[0].subagentId as string;
    // The child's turn has used up its resumes (as three earlier restarts would have).
    await runInDurableObject(env.SESSION.get(env.SESSION.idFromName(childId)), (_instance, ctx) => {
      ctx.storage.sql.exec(`UPDATE turn_steps SET body = json_set(body, '$.resumes', 3) WHERE id = 1`);
    });
    await abortAllDurableObjects();
    await sleep(50);

    const b = await TestClient.ready({}, { _meta: { hermes: { turnEnded: true } } });
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const ended = await b.turnEnded(sessionId, 0, 60_000);
    expect(ended.params.stopReason).toBe("end_turn");
    // The child's model was not called again; the parent's model read why it stopped.
    expect(await mockCalls(child)).toHaveLength(1);
    const tools = (await mockCalls(key))[1].body.messages.filter((m: Frame) => m.role === "tool");
    expect(tools).toHaveLength(1);
    expect(tools[0].content).toContain("1 delegated task: 1 interrupted.");
    expect(tools[0].content).toMatch(/restarted while this sub-agent worked, and its turn had already resumed 3 times/);
    a.close();
    b.close();
  });
});
