// How a sub-agent's run that stopped short reaches the parent: the status and
// the summary name why (cut off at the token limit, refused, paused, deleted
// with its parent), so the parent model and the editor can act on it.
import { describe, expect, it } from "vitest";
import { mockScript, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

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
  it("is not reported completed when its answer was cut off at the output-token limit, and the summary says so", async () => {
    const cut = await script("child-cut", [{ text: "The callers are: a.ts, b.ts, c", finishReason: "length" }]);
    const { client, results } = await delegate({ goal: goal(cut) });
    expect(results[0].status).toBe("failed");
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
