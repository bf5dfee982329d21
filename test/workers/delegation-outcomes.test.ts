// Sub-agents as a demanding editor user meets them: a run that stopped short
// says why (cut off at the token limit, refused), a parent's delete takes its
// sub-agent sessions along, and a grandchild can be interrupted from the root.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

const CWD = "/work/deleg-outcomes";

async function script(prefix: string, steps: Frame[]): Promise<string> {
  const key = uniqueKey(prefix);
  await mockScript(key, steps);
  return key;
}

const goal = (key: string, text = "do the task") => `${text} [[mock:${key}]]`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function delegate(args: Frame): Promise<{ client: TestClient; sessionId: string; results: any[] }> {
  const key = await script("parent", [{ toolCalls: [{ id: "call_delegate", name: "delegate_task", arguments: args }] }, { text: "done" }]);
  const client = await TestClient.ready();
  const sessionId = await client.newSession(CWD);
  expect((await client.prompt(sessionId, `[[mock:${key}]] go`).response).result).toEqual({ stopReason: "end_turn" });
  const done = client
    .updates(sessionId)
    .map((f) => f.params.update)
    .find((u) => u.toolCallId === "call_delegate" && u.status === "completed");
  if (!done) throw new Error("the delegate_task call did not complete");
  return { client, sessionId, results: done.rawOutput.results };
}

describe("a sub-agent that stopped short", () => {
  it("says so in the summary when its answer was cut off at the output-token limit", async () => {
    const cut = await script("child-cut", [{ text: "The callers are: a.ts, b.ts, c", finishReason: "length" }]);
    const { client, results } = await delegate({ goal: goal(cut) });
    // Its status stays completed (the unit tests of statusOf keep it so); the summary tells the parent the text is incomplete.
    expect(results[0].status).toBe("completed");
    expect(results[0].summary).toMatch(/^Stopped: the model's answer was cut off at its output-token limit/);
    expect(results[0].summary).toContain("The callers are: a.ts, b.ts, c");
    client.close();
  });

  it("names a refusal (content filter) as the cause instead of an empty summary", async () => {
    const refused = await script("child-refused", [{ text: "", finishReason: "content_filter" }]);
    const { client, results } = await delegate({ goal: goal(refused) });
    expect(results[0].status).toBe("failed");
    expect(results[0].summary).toMatch(/refused/);
    client.close();
  });
});

const rest = (path: string) => SELF.fetch(`http://hermes.test${path}`, { headers: { Authorization: "Bearer tok-alpha" } });

describe("session/delete of a parent", () => {
  it("deletes its sub-agent sessions and theirs, which no listing could reach once the parent is gone", async () => {
    const previous = env.HERMES_MAX_SPAWN_DEPTH;
    env.HERMES_MAX_SPAWN_DEPTH = "2";
    try {
      const grandchild = await script("grandchild", [{ text: "Grandchild done." }]);
      const orchestrator = await script("orchestrator", [
        { toolCalls: [{ id: "call_inner", name: "delegate_task", arguments: { goal: goal(grandchild, "inner") } }] },
        { text: "Orchestrator done." },
      ]);
      const leaf = await script("leaf", [{ text: "Leaf done." }]);
      const { client, sessionId, results } = await delegate({ tasks: [{ goal: goal(orchestrator, "orchestrate"), role: "orchestrator" }, { goal: goal(leaf, "leaf") }] });
      expect(results.map((r) => r.status)).toEqual(["completed", "completed"]);
      const inner: string = (await mockCalls(orchestrator))[1].body.messages.at(-1).content;
      const grandchildId: string = JSON.parse(inner.slice(inner.indexOf("\n") + 1)).results[0].subagent_id;
      const ids = [results[0].subagent_id as string, results[1].subagent_id as string, grandchildId];
      for (const id of ids) expect((await rest(`/v1/sessions/${id}`)).status).toBe(200);

      expect(await client.call("session/delete", { sessionId })).toEqual({});
      expect((await rest(`/v1/sessions/${sessionId}`)).status).toBe(404);
      for (const id of ids) {
        expect((await rest(`/v1/sessions/${id}`)).status).toBe(404);
        expect((await rest(`/v1/sessions/${id}/history`)).status).toBe(404);
        expect((await client.request("session/load", { sessionId: id, cwd: CWD, mcpServers: [] })).error).toMatchObject({ code: -32002 });
      }
      client.close();
    } finally {
      env.HERMES_MAX_SPAWN_DEPTH = previous;
    }
  });
});

describe("_hermes/subagents/interrupt of a sub-agent further down", () => {
  it("stops a grandchild named by the id its relayed updates carry in the root session; the orchestrator goes on", async () => {
    const previous = env.HERMES_MAX_SPAWN_DEPTH;
    env.HERMES_MAX_SPAWN_DEPTH = "2";
    try {
      const grandchild = await script("slow-grandchild", [{ tokens: 400, chunkDelayMs: 25 }]);
      const orchestrator = await script("orchestrator", [
        { toolCalls: [{ id: "call_inner", name: "delegate_task", arguments: { goal: goal(grandchild, "slow inner") } }] },
        { text: "Orchestrator done." },
      ]);
      const key = await script("parent", [
        { toolCalls: [{ id: "call_delegate", name: "delegate_task", arguments: { goal: goal(orchestrator, "orchestrate"), role: "orchestrator" } }] },
        { text: "done" },
      ]);
      const client = await TestClient.ready();
      const sessionId = await client.newSession(CWD);
      const prompt = client.prompt(sessionId, `[[mock:${key}]] go`, 30_000);
      // The orchestrator's delegate call, relayed into the root session, shows the grandchild running.
      const progress = await client.next(
        (f) => f.params?.sessionId === sessionId && /\/call_inner$/.test(f.params?.update?.toolCallId ?? "") && f.params.update._meta?.hermes?.subagents?.[0]?.state === "running",
      );
      const grandchildId: string = progress.params.update._meta.hermes.subagents[0].subagentId;
      const started = Date.now();
      expect(await client.call("_hermes/subagents/interrupt", { sessionId, subagentId: grandchildId })).toMatchObject({ interrupted: grandchildId });
      expect((await prompt.response).result).toEqual({ stopReason: "end_turn" });
      expect(Date.now() - started).toBeLessThan(5_000);

      const inner: string = (await mockCalls(orchestrator))[1].body.messages.at(-1).content;
      expect(JSON.parse(inner.slice(inner.indexOf("\n") + 1)).results[0]).toMatchObject({ subagent_id: grandchildId, status: "interrupted" });
      const done = client
        .updates(sessionId)
        .map((f) => f.params.update)
        .find((u) => u.toolCallId === "call_delegate" && u.status === "completed");
      expect(done.rawOutput.results[0]).toMatchObject({ status: "completed", summary: "Orchestrator done." });
      // An id that runs nowhere under the session is still -32002.
      expect((await client.request("_hermes/subagents/interrupt", { sessionId, subagentId: grandchildId })).error).toMatchObject({ code: -32002 });
      client.close();
    } finally {
      env.HERMES_MAX_SPAWN_DEPTH = previous;
    }
  });
});

describe("a delegation while spawning is paused", () => {
  it("tells the editor the task is held by the pause (and how to release it), not that it waits for a slot", async () => {
    const child = await script("held-child", [{ text: "ran after resume" }]);
    const key = await script("parent", [{ toolCalls: [{ id: "call_delegate", name: "delegate_task", arguments: { goal: goal(child, "held") } }] }, { text: "done" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    expect(await client.call("_hermes/subagents/pause", { sessionId })).toMatchObject({ paused: true });
    const prompt = client.prompt(sessionId, `[[mock:${key}]] go`);
    const queued = await client.next((f) => f.params?.update?.toolCallId === "call_delegate" && f.params.update._meta?.hermes?.subagents?.[0]?.state === "queued");
    expect(queued.params.update.content[0].content.text).toMatch(/held: new sub-agents are paused until _hermes\/subagents\/resume$/);
    expect(await client.call("_hermes/subagents/resume", { sessionId })).toMatchObject({ paused: false });
    expect((await prompt.response).result).toEqual({ stopReason: "end_turn" });
    client.close();
  });
});
