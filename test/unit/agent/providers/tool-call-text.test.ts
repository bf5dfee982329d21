import { describe, expect, it } from "vitest";
import { parseToolCallText } from "../../../../src/agent/providers/tool-call-text.js";
import { HeldText } from "../../../../src/agent/providers/held-text.js";

const call = (name: string, args: unknown) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

describe("parseToolCallText", () => {
  it("takes a <tool_call> block out and keeps the text around it", () => {
    const out = parseToolCallText(`Let me look.\n${call("read_file", { path: "/w/a.ts" })}\n`);
    expect(out.calls).toEqual([{ name: "read_file", arguments: '{"path":"/w/a.ts"}' }]);
    expect(out.text).toBe("Let me look.");
  });

  it("reads several blocks in order", () => {
    const out = parseToolCallText(`${call("a", { n: 1 })}\nand\n${call("b", { n: 2 })}`);
    expect(out.calls.map((c) => c.name)).toEqual(["a", "b"]);
    expect(out.text).toBe("and");
  });

  it("keeps nested braces and a closing tag inside a string argument", () => {
    const args = { content: 'function f() { return { a: { b: "}" } }; } // </tool_call> <tool_call>' };
    const out = parseToolCallText(`x ${call("write_file", args)} y`);
    expect(out.calls).toHaveLength(1);
    expect(JSON.parse(out.calls[0]!.arguments)).toEqual(args);
    expect(out.text).toBe("x y");
  });

  it("leaves invalid JSON as text, not an error", () => {
    const text = 'Try <tool_call>{"name": "read_file", "arguments": {path: oops}}</tool_call> later.';
    expect(parseToolCallText(text)).toEqual({ text, calls: [] });
  });

  it("leaves a block without a name, or with non-object arguments, as text", () => {
    for (const body of ['{"arguments": {}}', '{"name": "", "arguments": {}}', '{"name": "x", "arguments": [1]}', "[1,2]", '"str"']) {
      const text = `<tool_call>${body}</tool_call>`;
      expect(parseToolCallText(text).calls).toEqual([]);
    }
  });

  it("accepts absent arguments as {} and double-encoded arguments", () => {
    const out = parseToolCallText('<tool_call>{"name": "todo"}</tool_call><tool_call>{"name": "x", "arguments": "{\\"a\\":1}"}</tool_call>');
    expect(out.calls).toEqual([
      { name: "todo", arguments: "{}" },
      { name: "x", arguments: '{"a":1}' },
    ]);
  });

  it("does not call tools quoted inside fenced code or inline code", () => {
    const text = "The format is:\n```\n" + call("read_file", { path: "/x" }) + "\n```\nor `" + call("a", {}) + "` inline.";
    expect(parseToolCallText(text)).toEqual({ text, calls: [] });
  });

  it("calls the real block after a quoted example", () => {
    const text = "Example: `" + call("a", {}) + "`\n" + call("b", { ok: true });
    const out = parseToolCallText(text);
    expect(out.calls).toEqual([{ name: "b", arguments: '{"ok":true}' }]);
    expect(out.text).toBe("Example: `" + call("a", {}) + "`");
  });

  it("treats a truncated block as text, but accepts a complete one whose closing tag was cut off", () => {
    const truncated = 'Now <tool_call>{"name": "read_file", "arguments": {"path": "/w/a';
    expect(parseToolCallText(truncated)).toEqual({ text: truncated, calls: [] });
    const unclosed = 'Now <tool_call>{"name": "read_file", "arguments": {"path": "/w/a"}}';
    expect(parseToolCallText(unclosed).calls).toEqual([{ name: "read_file", arguments: '{"path":"/w/a"}' }]);
  });

  it("keeps an invalid first block as text and still takes a valid second one", () => {
    const out = parseToolCallText("<tool_call>{broken</tool_call>\n" + call("b", {}));
    expect(out.calls).toEqual([{ name: "b", arguments: "{}" }]);
    expect(out.text).toBe("<tool_call>{broken</tool_call>");
  });

  it("falls back to fenced ```json blocks holding name and arguments", () => {
    const text = 'I will read it.\n```json\n{"name": "read_file", "arguments": {"path": "/w/a.ts"}}\n```\nDone.';
    const out = parseToolCallText(text);
    expect(out.calls).toEqual([{ name: "read_file", arguments: '{"path":"/w/a.ts"}' }]);
    expect(out.text).toBe("I will read it.\nDone.");
  });

  it("leaves other fenced JSON, other languages and unclosed fences as text", () => {
    for (const text of [
      '```json\n{"config": {"name": 1}}\n```',
      '```ts\n{"name": "a", "arguments": {}}\n```',
      '```json\n{"name": "a", "arguments": {}}',
      '```json\n{"name": "a", "arguments": {oops}}\n```',
    ]) {
      expect(parseToolCallText(text)).toEqual({ text, calls: [] });
    }
  });

  it("prefers <tool_call> blocks: fenced JSON is then just text", () => {
    const fenced = '```json\n{"name": "a", "arguments": {}}\n```';
    const out = parseToolCallText(`${fenced}\n${call("b", {})}`);
    expect(out.calls.map((c) => c.name)).toEqual(["b"]);
    expect(out.text).toBe(fenced);
  });
});

describe("HeldText", () => {
  const stream = (chunks: string[]) => {
    const held = new HeldText();
    const shown = chunks.map((c) => held.push(c));
    return { shown, end: held.end() };
  };

  it("passes plain text through as it arrives", () => {
    const { shown, end } = stream(["Hel", "lo ", "world"]);
    expect(shown).toEqual(["Hel", "lo ", "world"]);
    expect(end).toEqual({ rest: "", parsed: { text: "Hello world", calls: [] } });
  });

  it("holds back from a marker split across chunks and never shows the call", () => {
    const { shown, end } = stream(["Reading <tool", '_call>{"name":"read_file","arguments":{}}</tool_call>', " then more"]);
    expect(shown.join("")).toBe("Reading ");
    expect(end.rest).toBe("then more");
    expect(end.parsed.calls).toEqual([{ name: "read_file", arguments: "{}" }]);
  });

  it("shows held text that turned out not to be a call at the end", () => {
    const { shown, end } = stream(["a <tool_call>{oops}", "</tool_call> b"]);
    expect(shown.join("")).toBe("a ");
    expect(end.rest).toBe("<tool_call>{oops}</tool_call> b");
    expect(end.parsed.text).toBe("a <tool_call>{oops}</tool_call> b");
  });

  it("streams other code fences, and holds a ```json fence whatever its case", () => {
    const ts = stream(["Code:\n``", "`ts\nconst a = 1;\n```\n", "done"]);
    expect(ts.shown.join("")).toBe("Code:\n```ts\nconst a = 1;\n```\ndone");
    const json = stream(["Call:\n```JS", 'ON\n{"name": "todo", "arguments": {}}\n```\n', "after"]);
    expect(json.shown.join("")).toBe("Call:\n");
    expect(json.end.rest).toBe("after");
    expect(json.end.parsed.calls).toEqual([{ name: "todo", arguments: "{}" }]);
  });

  it("keeps up with a long answer in small chunks: a chunk costs the time of its own text, not of all the text before it", () => {
    const held = new HeldText();
    const chunk = "The Quick brown fox jumps over. ";
    const started = performance.now();
    let shown = 0;
    for (let i = 0; i < 20_000; i++) shown += held.push(chunk).length;
    // 640 KB in 32-byte chunks, as an upstream streams a long answer: before, each push lowercased the whole text (14 s here).
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(shown).toBe(20_000 * chunk.length);
  });

  it("holds back from the marker itself when text before it changes length in lower case (İ)", () => {
    const { shown, end } = stream(["İstanbul İ ", '<tool_call>{"name":"todo","arguments":{}}</tool_call>']);
    expect(shown.join("")).toBe("İstanbul İ ");
    expect(end.parsed).toEqual({ text: "İstanbul İ ", calls: [{ name: "todo", arguments: "{}" }] });
  });

  it("releases a partial marker that does not complete", () => {
    const { shown, end } = stream(["x <to", "p secret"]);
    expect(shown.join("") + end.rest).toBe("x <top secret");
  });
});
