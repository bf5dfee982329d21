// Fan-out at the cap: with HERMES_MAX_CONCURRENT_CHILDREN=16, sixteen tasks
// run at once whether the model asks for them in one delegate_task call or in
// two calls of one message (adjacent delegations share a step of the batch).
import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";
import { withEnv } from "./scripted-editor.js";

const CWD = "/work/fan-out";
const CAP = 16;

/** Children that each answer after `delayMs`; their keys go into the goals. */
async function children(n: number, delayMs: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const key = uniqueKey(`child${i}`);
      await mockScript(key, [{ text: `child ${i} done`, firstTokenDelayMs: delayMs }]);
      return key;
    }),
  );
}

/** The most children whose model calls were in flight at one moment. */
async function peakOverlap(keys: string[]): Promise<number> {
  const spans = (await Promise.all(keys.map((k) => mockCalls(k)))).map((calls) => {
    expect(calls).toHaveLength(1);
    return { at: calls[0].at as number, endAt: calls[0].endAt as number };
  });
  return Math.max(...spans.map((s) => spans.filter((o) => o.at <= s.at && s.at < o.endAt).length));
}

async function delegate(calls: Frame[][]): Promise<{ client: TestClient; sessionId: string; response: Frame }> {
  const key = uniqueKey("parent");
  const toolCalls = calls.map((tasks, i) => ({ id: `call_d${i}`, name: "delegate_task", arguments: { tasks } }));
  await mockScript(key, [{ toolCalls }, { text: "All delegated work is done." }]);
  const client = await TestClient.ready({}, {});
  const sessionId = await withEnv({ HERMES_MAX_CONCURRENT_CHILDREN: String(CAP) }, () => client.newSession(CWD));
  const response = await client.prompt(sessionId, `[[mock:${key}]] fan out`, 30_000).response;
  return { client, sessionId, response };
}

function results(client: TestClient, sessionId: string, toolCallId: string): Frame[] {
  const done = client
    .updates(sessionId)
    .map((f) => f.params.update)
    .find((u) => u.toolCallId === toolCallId && u.status === "completed");
  if (!done) throw new Error(`${toolCallId} did not complete`);
  return done.rawOutput.results;
}

describe("delegate_task fan-out at the cap", () => {
  it("runs sixteen tasks of one call at once", async () => {
    const keys = await children(CAP, 1_500);
    const { client, sessionId, response } = await delegate([keys.map((k, i) => ({ goal: `task ${i} [[mock:${k}]]` }))]);
    expect(response.result).toEqual({ stopReason: "end_turn" });
    expect(results(client, sessionId, "call_d0").map((r) => r.status)).toEqual(Array(CAP).fill("completed"));
    expect(await peakOverlap(keys)).toBe(CAP);
    client.close();
  });

  it("runs two delegate_task calls of one message together: their sixteen tasks overlap, sharing the session's cap", async () => {
    const keys = await children(CAP, 1_500);
    const half = (from: number) => keys.slice(from, from + CAP / 2).map((k, i) => ({ goal: `task ${from + i} [[mock:${k}]]` }));
    const { client, sessionId, response } = await delegate([half(0), half(CAP / 2)]);
    expect(response.result).toEqual({ stopReason: "end_turn" });
    for (const id of ["call_d0", "call_d1"]) expect(results(client, sessionId, id).map((r) => r.status)).toEqual(Array(CAP / 2).fill("completed"));
    // In turn, at most eight would ever overlap.
    expect(await peakOverlap(keys)).toBe(CAP);
    // Both calls were announced, in the model's order, before either finished.
    const updates = client.updates(sessionId).map((f) => f.params.update);
    const announced = updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
    expect(announced.slice(0, 2)).toEqual(["call_d0", "call_d1"]);
    const firstDone = updates.findIndex((u) => u.status === "completed");
    expect(updates.findIndex((u) => u.toolCallId === "call_d1" && u.sessionUpdate === "tool_call")).toBeLessThan(firstDone);
    client.close();
  });

  it("runs no more than the cap at once across two calls of one message", async () => {
    const keys = await children(CAP + 4, 800);
    const half = (from: number) => keys.slice(from, from + (CAP + 4) / 2).map((k, i) => ({ goal: `task ${from + i} [[mock:${k}]]` }));
    const { client, response } = await delegate([half(0), half((CAP + 4) / 2)]);
    expect(response.result).toEqual({ stopReason: "end_turn" });
    // Never above the cap; above one call's ten, so the calls did run together (a loaded machine may start the last a little late).
    const peak = await peakOverlap(keys);
    expect(peak).toBeLessThanOrEqual(CAP);
    expect(peak).toBeGreaterThan((CAP + 4) / 2);
    client.close();
  });
});
