import { describe, expect, it } from "vitest";
import { estimateTokens, shouldCompact, splitForCompaction, summaryMessage, summaryRequest } from "../../../src/agent/compaction.js";
import type { ChatMessage } from "../../../src/agent/model-provider.js";

const history: ChatMessage[] = [
  { role: "user", content: "read a.ts" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"/w/a.ts"}' } }] },
  { role: "tool", tool_call_id: "c1", content: "export const a = 1;" },
  { role: "assistant", content: "a is 1" },
  { role: "user", content: "now b" },
];

describe("compaction decisions", () => {
  it("estimates about four characters a token, counting tool calls", () => {
    expect(estimateTokens([{ role: "user", content: "x".repeat(398) }])).toBe(100);
    expect(estimateTokens(history)).toBeGreaterThan(estimateTokens(history.filter((m) => m.role !== "assistant")));
  });

  it("compacts at 80% of the window", () => {
    expect(shouldCompact(79_999, 100_000)).toBe(false);
    expect(shouldCompact(80_000, 100_000)).toBe(true);
  });

  it("before a turn keeps the latest prompt verbatim and never splits a tool call from its result", () => {
    const { older, kept } = splitForCompaction(history, true);
    expect(kept).toEqual([{ role: "user", content: "now b" }]);
    expect(older).toHaveLength(4);
    expect(older.at(-2)).toMatchObject({ role: "tool", tool_call_id: "c1" });
  });

  it("between turns summarizes everything", () => {
    expect(splitForCompaction(history, false)).toEqual({ older: history, kept: [] });
  });

  it("asks for a summary of a transcript that names the tool calls", () => {
    const [system, user] = summaryRequest(history.slice(0, 4));
    expect(system!.role).toBe("system");
    expect(user!.content).toContain('read_file({"path":"/w/a.ts"})');
    expect(user!.content).toContain("TOOL: export const a = 1;");
  });

  it("trims a huge transcript from the front", () => {
    const huge: ChatMessage[] = [{ role: "user", content: `START${"y".repeat(500_000)}END` }];
    const content = summaryRequest(huge)[1]!.content as string;
    expect(content).toContain("[…earlier part omitted…]");
    expect(content).toContain("END");
    expect(content).not.toContain("START");
  });

  it("stands the summary in as one user message", () => {
    expect(summaryMessage("S")).toEqual({ role: "user", content: expect.stringMatching(/compacted[\s\S]*\n\nS$/) });
  });
});
