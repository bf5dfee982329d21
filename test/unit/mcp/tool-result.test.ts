import { describe, expect, it } from "vitest";
import { MAX_EDITOR_CONTENT_BYTES, MAX_EDITOR_IMAGE_CHARS, toolOutcome } from "../../../src/mcp/tool-result.js";
import { PREVIEW_CHARS } from "../../../src/tools/render.js";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
import { ToolError } from "../../../src/tools/tool.js";

describe("toolOutcome", () => {
  it("gives the model the text and the editor a text block", () => {
    expect(toolOutcome("s: t", { content: [{ type: "text", text: "hello" }] })).toEqual({
      output: "hello",
      content: [{ type: "content", content: { type: "text", text: "hello" } }],
    });
  });

  it("adds structured content only when no text block carries it", () => {
    expect(toolOutcome("s: t", { content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } }).output).toBe('{"a":1}');
    expect(toolOutcome("s: t", { content: [], structuredContent: { a: 1 } }).output).toBe('Structured result:\n{"a":1}');
  });

  it("describes a large image to the editor instead of sending it", () => {
    const data = "A".repeat(MAX_EDITOR_IMAGE_CHARS + 4);
    const outcome = toolOutcome("s: t", { content: [{ type: "image", data, mimeType: "image/png" }] });
    expect(outcome.output).toBe("[image: image/png, 393,219 bytes]");
    expect(outcome.content).toEqual([{ type: "content", content: { type: "text", text: "[image: image/png, 393,219 bytes]" } }]);
  });

  it("shows several images only while they fit one log row together, and describes the rest", () => {
    const image = { type: "image" as const, data: "A".repeat(MAX_EDITOR_IMAGE_CHARS - 1000), mimeType: "image/png" };
    const content = toolOutcome("s: t", { content: [image, image, image, image, image] }).content ?? [];
    expect(bytes(content)).toBeLessThanOrEqual(MAX_EDITOR_CONTENT_BYTES);
    const kinds = content.map((c) => (c.type === "content" ? c.content.type : c.type));
    expect(kinds).toEqual(["image", "image", "image", "text", "text"]);
    expect(JSON.stringify(content[3])).toContain("not shown: the result is too large to show in full");
  });

  it("counts the editor's budget in UTF-8 bytes: many multi-byte blocks stay within one log row", () => {
    // Each preview is 5,000 characters of 3-byte text: 15 KB as UTF-8, 5 KB counted in characters.
    const block = { type: "text" as const, text: "漢".repeat(PREVIEW_CHARS) };
    const content = toolOutcome("s: t", { content: Array.from({ length: 200 }, () => block) }).content ?? [];
    expect(bytes(content)).toBeLessThanOrEqual(MAX_EDITOR_CONTENT_BYTES);
    expect(JSON.stringify(content.at(-1))).toMatch(/more content blocks not shown: the result is too large to show in full/);
  });

  it("never outgrows the budget however many blocks a result has", () => {
    const content = toolOutcome("s: t", { content: Array.from({ length: 200_000 }, () => ({ type: "text" as const, text: "a" })) }).content ?? [];
    expect(bytes(content)).toBeLessThanOrEqual(MAX_EDITOR_CONTENT_BYTES);
    expect(JSON.stringify(content.at(-1))).toMatch(/… [\d,]+ more content blocks not shown/);
  });

  it("once one block is left out, leaves out the rest as well, small ones too, and counts them", () => {
    const big = { type: "text" as const, text: "漢".repeat(PREVIEW_CHARS) };
    const blocks = [...Array.from({ length: 200 }, () => big), { type: "text" as const, text: "z" }];
    const content = toolOutcome("s: t", { content: blocks }).content ?? [];
    const texts = content.map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""));
    expect(texts).not.toContain("z");
    expect(texts.at(-1)).toBe(`… ${blocks.length - (content.length - 1)} more content blocks not shown: the result is too large to show in full`);
  });

  it("cuts an embedded text resource like a text preview, with a note saying how much", () => {
    const resource = { uri: "file:///big.log", mimeType: "text/plain", text: "r".repeat(PREVIEW_CHARS + 1_234) };
    const [shown] = toolOutcome("s: t", { content: [{ type: "resource", resource }] }).content ?? [];
    expect(shown).toEqual({
      type: "content",
      content: { type: "resource", resource: { uri: "file:///big.log", mimeType: "text/plain", text: `${"r".repeat(PREVIEW_CHARS)}\n… 1,234 more characters not shown` } },
    });
  });

  it("describes binary embedded resources", () => {
    const outcome = toolOutcome("s: t", { content: [{ type: "resource", resource: { uri: "file:///x.bin", blob: "AAAA", mimeType: "application/octet-stream" } }] });
    expect(outcome.output).toBe("[resource file:///x.bin (application/octet-stream): 3 bytes of binary data]");
  });

  it("turns isError into a tool error the model sees", () => {
    expect(() => toolOutcome("docs: fetch", { isError: true, content: [{ type: "text", text: "not found" }] })).toThrow(ToolError);
    expect(() => toolOutcome("docs: fetch", { isError: true, content: [{ type: "text", text: "not found" }] })).toThrow("docs: fetch reported an error: not found");
  });

  it("says so when the tool returned nothing", () => {
    expect(toolOutcome("s: t", { content: [] }).output).toBe("(the tool returned no content)");
  });
});
