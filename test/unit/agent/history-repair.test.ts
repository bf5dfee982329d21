import { describe, expect, it } from "vitest";
import { unansweredToolResults } from "../../../src/agent/history-repair.js";
import type { ChatMessage } from "../../../src/agent/model-provider.js";

const call = (id: string) => ({ id, type: "function" as const, function: { name: "read_file", arguments: "{}" } });

describe("unansweredToolResults", () => {
  it("answers the tool calls of the last assistant message that have no result yet", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b"), call("c")] },
      { role: "tool", tool_call_id: "a", content: "done" },
    ];
    expect(unansweredToolResults(history, "cut")).toEqual([
      { role: "tool", tool_call_id: "b", content: "cut" },
      { role: "tool", tool_call_id: "c", content: "cut" },
    ]);
  });

  it("adds nothing to a history whose calls are all answered, or that has none", () => {
    expect(
      unansweredToolResults(
        [
          { role: "assistant", content: null, tool_calls: [call("a")] },
          { role: "tool", tool_call_id: "a", content: "x" },
          { role: "assistant", content: "ok" },
        ],
        "cut",
      ),
    ).toEqual([]);
    expect(unansweredToolResults([{ role: "user", content: "hi" }], "cut")).toEqual([]);
  });
});
