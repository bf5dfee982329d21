import { describe, expect, it } from "vitest";
import { decideCall, decideTurnResume, INTERRUPTED_RESULT, MAX_RESUMES, RESUME_WINDOW_MS, resumeLine, UNAVAILABLE_RESULT, unansweredCalls } from "../../../src/session/resume-decision.js";

const T0 = 1_000_000;

describe("decideTurnResume", () => {
  it("resumes a turn that has not resumed yet, counting the resume", () => {
    expect(decideTurnResume({ promptId: 1, startedAt: T0, resumes: 0 }, T0 + 5_000)).toEqual({ action: "resume", resumes: 1 });
  });

  it("stops resuming after three resumes", () => {
    expect(decideTurnResume({ promptId: 1, startedAt: T0, resumes: MAX_RESUMES - 1 }, T0)).toEqual({ action: "resume", resumes: 3 });
    expect(decideTurnResume({ promptId: 1, startedAt: T0, resumes: MAX_RESUMES }, T0)).toEqual({ action: "interrupt", reason: "too_many_resumes" });
  });

  it("does not resume a turn started more than 30 minutes ago", () => {
    expect(decideTurnResume({ promptId: 1, startedAt: T0, resumes: 0 }, T0 + RESUME_WINDOW_MS)).toMatchObject({ action: "resume" });
    expect(decideTurnResume({ promptId: 1, startedAt: T0, resumes: 0 }, T0 + RESUME_WINDOW_MS + 1)).toEqual({ action: "interrupt", reason: "too_old" });
  });
});

describe("decideCall", () => {
  const call = (over: Partial<Parameters<typeof decideCall>[0]>) => decideCall({ id: "c", name: "x", kind: "read", external: false, phase: "started", ...over });

  it("runs again a call that had not started or was waiting on a permission question", () => {
    expect(call({ kind: "execute", phase: null })).toEqual({ id: "c", action: "rerun" });
    expect(call({ kind: "execute", phase: "asking" })).toEqual({ id: "c", action: "rerun" });
  });

  it("reports a running command or MCP call as interrupted instead of running it twice", () => {
    expect(call({ kind: "execute" })).toEqual({ id: "c", action: "interrupted", result: INTERRUPTED_RESULT });
    expect(call({ kind: "other", external: true })).toMatchObject({ action: "interrupted" });
    expect(INTERRUPTED_RESULT).toMatch(/restart.*may or may not have completed/);
  });

  it("runs again a delegation that had started: running it again waits for its sub-agents instead of starting them again", () => {
    expect(call({ kind: "execute", resumable: true })).toEqual({ id: "c", action: "rerun" });
    expect(call({ kind: "execute", resumable: false })).toMatchObject({ action: "interrupted" });
  });

  it("reports as interrupted a call that had started or asked when its tool is no longer offered (no editor came back)", () => {
    expect(call({ kind: undefined, phase: "asking" })).toEqual({ id: "c", action: "interrupted", result: UNAVAILABLE_RESULT });
    expect(call({ kind: undefined })).toMatchObject({ action: "interrupted" });
    // One that had not started is answered as any unknown tool is, by the turn loop.
    expect(call({ kind: undefined, phase: null })).toEqual({ id: "c", action: "rerun" });
    expect(UNAVAILABLE_RESULT).toMatch(/restart.*no editor.*may or may not have completed/);
  });

  it("runs again reads, edits and searches, which give the same result twice", () => {
    for (const kind of ["read", "edit", "search", "fetch", "other"] as const) expect(call({ kind })).toMatchObject({ action: "rerun" });
  });
});

describe("unansweredCalls", () => {
  it("finds the last model message's calls without results, in order", () => {
    const fn = (id: string) => ({ id, type: "function" as const, function: { name: `t${id}`, arguments: "{}" } });
    const history = [
      { role: "user" as const, content: "go" },
      { role: "assistant" as const, content: null, tool_calls: [fn("1"), fn("2"), fn("3")] },
      { role: "tool" as const, tool_call_id: "1", content: "ok" },
    ];
    expect(unansweredCalls(history)).toEqual([
      { id: "2", name: "t2", arguments: "{}" },
      { id: "3", name: "t3", arguments: "{}" },
    ]);
    expect(unansweredCalls([...history, { role: "tool", tool_call_id: "2", content: "" }, { role: "tool", tool_call_id: "3", content: "" }])).toEqual([]);
  });
});

describe("resumeLine", () => {
  it("is one line that names the restart", () => {
    expect(resumeLine(1).trim().split("\n")).toHaveLength(1);
    expect(resumeLine(2)).toMatch(/restart.*resume 2 of 3/);
  });
});
