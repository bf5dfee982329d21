import { describe, expect, it } from "vitest";
import { blockJsons, cutContent, pasteContent, PromptRefs } from "../../../src/session/prompt-refs.js";

describe("prompt references", () => {
  it("marks a parsed prompt and its blocks with their row, and nothing else", () => {
    const refs = new PromptRefs();
    const prompt = refs.parse(7, JSON.stringify([{ type: "text", text: "a" }, { type: "text", text: "b" }]));
    expect(refs.rowOf(prompt)).toBe(7);
    expect(refs.blockOf(prompt[1])).toEqual({ promptId: 7, block: 1 });
    // An equal prompt that was not read from the row is not the row's content.
    expect(refs.rowOf([{ type: "text", text: "a" }])).toBeUndefined();
    expect(refs.blockOf({ type: "text", text: "a" })).toBeUndefined();
    expect(refs.blockOf(undefined)).toBeUndefined();
    const message = { role: "user", content: "x" };
    refs.mark(message, 7);
    expect(refs.rowOf(message)).toBe(7);
    // Another store's marks are its own.
    expect(new PromptRefs().rowOf(prompt)).toBeUndefined();
  });

  it("cuts a block out of a frame and pastes it back to the same text", () => {
    const content = { type: "text", text: 'é😀 \ud800 "q" \\ \u2028', _meta: { n: 0.1 + 0.2, k: { "2": 1, "1": 2 } } };
    const json = JSON.stringify(content);
    const frame = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "user_message_chunk", content, messageId: "m" } } });
    const cut = cutContent(frame, json)!;
    expect(cut.frame).not.toContain("😀");
    // What is stored stays JSON (a rolled-back deploy reads it as a frame with no content).
    expect(JSON.parse(cut.frame).params.update.content).toBeNull();
    expect(pasteContent(cut, json)).toBe(frame);
    // What a later read gets back from the stored prompt is the same JSON.
    expect(blockJsons(JSON.stringify([{ type: "image", data: "AA==", mimeType: "image/png" }, content]))[1]).toBe(json);
    expect(cutContent(frame, '{"type":"image"}')).toBeNull();
  });
});
