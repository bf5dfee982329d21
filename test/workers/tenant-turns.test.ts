// Tenant limits and usage as a session meets them: the prompt runner holds
// the tenant's turn slot while its queue works, a sub-agent holds a
// sub-agent slot, and every turn adds to today's usage as it spends.
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { utcDay } from "../../src/tenant/usage.js";
import { mockScript, sleep, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";
import { admin, call, createKey, json, uniqueTenant } from "./admin-client.js";

const CWD = "/work/tenant-turns";

async function tenantWithKey(limits: Frame = {}): Promise<{ tenant: string; key: string }> {
  const tenant = uniqueTenant();
  const { key } = await createKey(tenant);
  const put = await admin(`/tenants/${tenant}/limits`, { method: "PUT", body: limits });
  expect(put.status).toBe(200);
  return { tenant, key: key as string };
}

/** Today's usage totals from `GET /v1/usage`, read until `done` holds (the tenant flushes to D1 shortly after). */
async function todaysUsage(key: string, done: (total: Frame) => boolean): Promise<Frame> {
  const today = utcDay(Date.now());
  let usage: Frame = {};
  for (let i = 0; i < 50; i++) {
    usage = await json(call(`/v1/usage?from=${today}&to=${today}`, { token: key }));
    if (usage.total && done(usage.total)) break;
    await sleep(50);
  }
  return usage;
}

describe("a tenant's turn slots", () => {
  it("refuses a prompt over maxConcurrentTurns with -32003 and its data; a prompt queued in the same session does not count twice", async () => {
    const { key } = await tenantWithKey({ maxConcurrentTurns: 1 });
    const mock = uniqueKey();
    await mockScript(mock, [{ tokens: 300, chunkDelayMs: 10 }]);
    const client = await TestClient.ready({ token: key });
    const busy = await client.newSession(CWD);
    const other = await client.newSession(CWD);
    const running = client.prompt(busy, `long [[mock:${mock}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk", 15_000, 0);
    // Queued behind the running turn of the same session: it shares that session's slot.
    const queued = client.prompt(busy, "then this");

    const refused = await client.prompt(other, "me too").response;
    expect(refused.error.code).toBe(-32003);
    expect(refused.error.message).toMatch(/^tenant limit reached: maxConcurrentTurns/);
    expect(refused.error.data).toMatchObject({ limit: "maxConcurrentTurns", used: 1, max: 1 });

    expect((await running.response).result).toEqual({ stopReason: "end_turn" });
    expect((await queued.response).result).toEqual({ stopReason: "end_turn" });
    // The slot went back when the busy session's queue drained.
    expect((await client.prompt(other, "now?").response).result).toEqual({ stopReason: "end_turn" });
    client.close();
  });
});

describe("a turn slot kept after its turn", () => {
  /** `active.turns` of the tenant's limits view, read until `done` holds. */
  async function activeTurns(tenant: string, done: (turns: number) => boolean): Promise<number> {
    let turns = -1;
    for (let i = 0; i < 60 && !done(turns); i++) {
      if (i > 0) await sleep(50);
      turns = (await json(admin(`/tenants/${tenant}/limits`))).active.turns;
    }
    return turns;
  }

  it("stays a moment when the tenant is at most half full, and session/close gives it back at once", async () => {
    const { tenant, key } = await tenantWithKey({ maxConcurrentTurns: 4 });
    const client = await TestClient.ready({ token: key });
    const kept = await client.newSession(CWD);
    expect((await client.prompt(kept, "hello").response).result).toEqual({ stopReason: "end_turn" });
    expect((await json(admin(`/tenants/${tenant}/limits`))).active.turns).toBe(1);
    expect(await client.call("session/close", { sessionId: kept })).toEqual({});
    expect((await json(admin(`/tenants/${tenant}/limits`))).active.turns).toBe(0);
    // Unused, it goes back on its own.
    const other = await client.newSession(CWD);
    expect((await client.prompt(other, "hello").response).result).toEqual({ stopReason: "end_turn" });
    expect(await activeTurns(tenant, (turns) => turns === 0)).toBe(0);
    client.close();
  });
});

describe("usage from real turns", () => {
  it("counts turns, model calls, tokens, tool calls and a sub-agent for GET /v1/usage", async () => {
    const { tenant, key } = await tenantWithKey();
    const child = uniqueKey("child");
    await mockScript(child, [{ text: "child done", usage: { prompt_tokens: 7, completion_tokens: 3 } }]);
    const parent = uniqueKey("parent");
    await mockScript(parent, [
      { text: "plain answer", usage: { prompt_tokens: 10, completion_tokens: 5 } },
      { toolCalls: [{ id: "call_d", name: "delegate_task", arguments: { goal: `help [[mock:${child}]]` } }], usage: { prompt_tokens: 20, completion_tokens: 4 } },
      { text: "all done", usage: { prompt_tokens: 30, completion_tokens: 6 } },
    ]);
    const client = await TestClient.ready({ token: key });
    const sessionId = await client.newSession(CWD);
    expect((await client.prompt(sessionId, `first [[mock:${parent}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect((await client.prompt(sessionId, "delegate it").response).result).toEqual({ stopReason: "end_turn" });

    // Usage is recorded after each turn's answer, off its path: wait until both turns are in.
    const usage = await todaysUsage(key, (t) => t.turns === 2 && t.subagents === 1);
    expect(usage.tenant).toBe(tenant);
    expect(usage.total).toEqual({ turns: 2, modelCalls: 4, inputTokens: 67, outputTokens: 18, toolCalls: 1, subagents: 1 });
    client.close();
  });
});

describe("usage of a turn's tool calls", () => {
  it("counts each tool call a finished turn made exactly once, across its model calls", async () => {
    const { key } = await tenantWithKey();
    const mock = uniqueKey();
    const plan = (content: string) => ({ todos: [{ content, status: "in_progress" }] });
    await mockScript(mock, [
      { toolCalls: [{ id: "t1", name: "todo", arguments: plan("a") }, { id: "t2", name: "todo", arguments: plan("b") }] },
      // A call that fails its arguments was still made: the model spent it.
      { toolCalls: [{ id: "t3", name: "todo", arguments: { todo: [] } }] },
      { text: "done" },
    ]);
    const client = await TestClient.ready({ token: key });
    const sessionId = await client.newSession(CWD);
    expect((await client.prompt(sessionId, `plan [[mock:${mock}]]`).response).result).toEqual({ stopReason: "end_turn" });

    const usage = await todaysUsage(key, (t) => t.turns === 1 && t.modelCalls === 3);
    expect(usage.total).toMatchObject({ turns: 1, modelCalls: 3, toolCalls: 3, subagents: 0 });
    client.close();
  });
});

describe("usage a model server reports incompletely", () => {
  it("counts what it did report, and the session's later turns still reach GET /v1/usage", async () => {
    const { key } = await tenantWithKey();
    const mock = uniqueKey();
    // An OpenAI-compatible server whose usage event leaves out completion_tokens.
    await mockScript(mock, [
      { text: "first", usage: { prompt_tokens: 7 } },
      { text: "second", usage: { prompt_tokens: 10, completion_tokens: 5 } },
    ]);
    const client = await TestClient.ready({ token: key });
    const sessionId = await client.newSession(CWD);
    expect((await client.prompt(sessionId, `one [[mock:${mock}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect((await client.prompt(sessionId, "two").response).result).toEqual({ stopReason: "end_turn" });

    const usage = await todaysUsage(key, (t) => t.turns === 2);
    // The editor's context meter gets a number (ACP requires one), never null.
    const used = client.frames.filter((f) => f.params?.update?.sessionUpdate === "usage_update").map((f) => f.params.update.used);
    expect(used).toEqual([7, 15]);
    expect(usage.total).toEqual({ turns: 2, modelCalls: 2, inputTokens: 17, outputTokens: 5, toolCalls: 0, subagents: 0 });
    client.close();
  });
});

describe("usage of a turn a restart cuts off", () => {
  it("counts the turn and the model and tool calls it had made when GET /v1/usage is read after the restart", async () => {
    const { key } = await tenantWithKey();
    const mock = uniqueKey();
    // The model asks to read two files (they run at once); the editor never answers, and then every object is evicted, as in a deploy.
    await mockScript(mock, [
      {
        toolCalls: [
          { id: "call_a", name: "read_file", arguments: { path: `${CWD}/a.ts` } },
          { id: "call_b", name: "read_file", arguments: { path: `${CWD}/b.ts` } },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 2 },
      },
      { text: "never reached" },
    ]);
    const a = await TestClient.ready({ token: key }, { fs: { readTextFile: true } });
    a.onRequest("fs/read_text_file", () => new Promise(() => undefined));
    const sessionId = await a.newSession(CWD);
    void a.prompt(sessionId, `read it [[mock:${mock}]]`);
    await a.next((f) => f.method === "fs/read_text_file");
    await abortAllDurableObjects();
    await sleep(50);

    // The restarted session object gives its slot back with the usage it had kept, and resumes the turn:
    // the read that was waiting on the editor is asked again, then the model is called once more.
    const b = await TestClient.ready({ token: key }, { fs: { readTextFile: true }, _meta: { hermes: { turnEnded: true } } });
    b.onRequest("fs/read_text_file", () => ({ content: "read after the restart" }));
    await b.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    await b.turnEnded(sessionId, 0, 30_000);
    const usage = await todaysUsage(key, (t) => t.modelCalls === 2);
    // Both reads had started before the restart: both count; the resumed turn asks both again, and they count again; the resume is no new turn.
    expect(usage.total).toMatchObject({ turns: 1, modelCalls: 2, toolCalls: 4, subagents: 0 });
    expect(usage.total.inputTokens).toBeGreaterThan(11);
    a.close();
    b.close();
  });
});

describe("usage of a compaction", () => {
  it("counts the summary's model call and tokens, as a turn's own calls are", async () => {
    const { key } = await tenantWithKey();
    const mock = uniqueKey();
    // /compress summarizes everything, so the marker in the first prompt reaches the summary call.
    await mockScript(mock, [
      { text: "answer one", usage: { prompt_tokens: 10, completion_tokens: 1 } },
      { text: "SUMMARY", usage: { prompt_tokens: 50, completion_tokens: 5 } },
    ]);
    const client = await TestClient.ready({ token: key });
    const sessionId = await client.newSession(CWD);
    expect((await client.prompt(sessionId, `hello [[mock:${mock}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect((await client.prompt(sessionId, "/compress").response).result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toContain("Compacted the earlier conversation");
    // The id the editor knows, not the new segment's (issue 26, item 9).
    expect(client.agentText(sessionId)).toContain(`session ${sessionId} continues from it.`);

    const usage = await todaysUsage(key, (t) => t.turns === 2);
    expect(usage.total).toEqual({ turns: 2, modelCalls: 2, inputTokens: 60, outputTokens: 6, toolCalls: 0, subagents: 0 });
    client.close();
  });
});
