import { describe, expect, it } from "vitest";
import { flattenTranscript, TOOL_CALL_INSTRUCTION } from "../../../../src/agent/providers/flatten-transcript.js";
import { parseToolCallText } from "../../../../src/agent/providers/tool-call-text.js";

const readFile = {
  type: "function" as const,
  function: { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } } } },
};

describe("flattenTranscript", () => {
  it("puts system prompt, history, tool calls and results, and tool specs into one prompt in order", () => {
    const prompt = flattenTranscript(
      [
        { role: "system", content: "You are hermes." },
        { role: "user", content: [{ type: "text", text: "What is in a.ts?" }, { type: "image_url", image_url: { url: "data:x" } }] },
        { role: "assistant", content: "Reading.", tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"/w/a.ts"}' } }] },
        { role: "tool", tool_call_id: "c1", content: "export const a = 1;" },
      ],
      [readFile],
    );
    const order = ["# Instructions\n\nYou are hermes.", "# User\n\nWhat is in a.ts?", "# Assistant (you)\n\nReading.", "# Tool result: read_file (c1)\n\nexport const a = 1;", "# Tools", "# Your turn"];
    const positions = order.map((s) => prompt.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).toContain("[an image was attached here; this model cannot see it]");
    expect(prompt).toContain(TOOL_CALL_INSTRUCTION);
    expect(prompt).toContain('## read_file\nRead a file.\nArguments (JSON Schema): {"type":"object","properties":{"path":{"type":"string"}}}');
    // The earlier call is written in the same form the model is asked to use.
    expect(prompt).toContain('<tool_call>{"name":"read_file","arguments":{"path":"/w/a.ts"}}</tool_call>');
  });

  it("has no tools section when there are no tools", () => {
    const prompt = flattenTranscript([{ role: "user", content: "hi" }], []);
    expect(prompt).not.toContain("# Tools");
    expect(prompt).not.toContain("<tool_call>");
  });

  it("round-trips: a call written as the instruction says is parsed back", () => {
    const example = '<tool_call>{"name": "read_file", "arguments": {"path": "/w/x"}}</tool_call>';
    expect(parseToolCallText(example).calls).toEqual([{ name: "read_file", arguments: '{"path":"/w/x"}' }]);
  });
});
