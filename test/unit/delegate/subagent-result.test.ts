import { describe, expect, it } from "vitest";
import { boundSummary, MAX_SUMMARY_CHARS, resultsForModel, resultWithoutRun, shortLine, statusOf } from "../../../src/delegate/subagent-result.js";

describe("boundSummary", () => {
  it("keeps a short summary as it is (trimmed)", () => {
    expect(boundSummary("  done: 3 files changed \n")).toBe("done: 3 files changed");
  });

  it("cuts a long summary to the bound, keeping head and tail and saying where the rest is", () => {
    const text = `HEAD${"x".repeat(10_000)}TAIL`;
    const bounded = boundSummary(text, MAX_SUMMARY_CHARS, "sub-agent session s-1");
    expect(bounded.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(bounded.startsWith("HEAD")).toBe(true);
    expect(bounded.endsWith("TAIL")).toBe(true);
    expect(bounded).toMatch(/characters omitted; the full text is in sub-agent session s-1/);
  });

  it("says how many characters it left out", () => {
    const bounded = boundSummary("z".repeat(5_000), 1_000);
    const omitted = Number(/\[… (\d+) characters omitted/.exec(bounded)?.[1]);
    const kept = bounded.length - bounded.replace(/z/g, "").length;
    expect(kept + omitted).toBe(5_000);
  });
});

describe("shortLine", () => {
  it("takes the first non-empty line and cuts it with an ellipsis", () => {
    expect(shortLine("\n\nFirst line\nsecond")).toBe("First line");
    expect(shortLine("y".repeat(200), 10)).toBe(`${"y".repeat(9)}…`);
  });
});

describe("statusOf", () => {
  const ok = { stopReason: "end_turn" as const, modelCalls: 2 };
  it.each([
    [ok, null, "completed"],
    [{ ...ok, stopReason: "max_tokens" as const }, null, "completed"],
    [{ ...ok, stopReason: "cancelled" as const }, null, "interrupted"],
    [ok, "interrupted" as const, "interrupted"],
    [{ ...ok, stopReason: "cancelled" as const }, "timeout" as const, "timeout"],
    [{ ...ok, error: { code: -32603, message: "x" } }, null, "failed"],
    [{ ...ok, stopReason: "max_turn_requests" as const }, null, "failed"],
    [{ ...ok, stopReason: "refusal" as const }, null, "failed"],
    [{ stopReason: "end_turn" as const }, null, "failed"],
  ])("%j with cause %s is %s", (outcome, cause, status) => {
    expect(statusOf(outcome, cause)).toBe(status);
  });
});

describe("resultsForModel", () => {
  it("tallies statuses on the first line and carries every field as JSON", () => {
    const a = { ...resultWithoutRun(0, "s-a", "m", "completed", "did it"), api_calls: 2, tools_used: ["read_file"] };
    const b = resultWithoutRun(1, "s-b", "m", "failed", "broke");
    const text = resultsForModel([a, b]);
    expect(text.split("\n")[0]).toBe("2 delegated tasks: 1 completed, 1 failed.");
    const json = JSON.parse(text.slice(text.indexOf("\n") + 1));
    expect(json.results[0]).toEqual({
      task_index: 0,
      subagent_id: "s-a",
      status: "completed",
      summary: "did it",
      api_calls: 2,
      duration_seconds: 0,
      model: "m",
      tokens: { input: 0, output: 0, total: 0 },
      tools_used: ["read_file"],
    });
    expect(json.results[1].status).toBe("failed");
  });
});
