import { describe, expect, it } from "vitest";
import { zSetTitle } from "../../../src/acp/params.js";
import { entryOf, MAX_ENTRY_CHARS } from "../../../src/session/search-feed.js";
import { MAX_TITLE_CHARS, normalizeTitle } from "../../../src/session/session-title.js";

describe("normalizeTitle", () => {
  it("makes one trimmed line and cuts at 200 characters without splitting a surrogate pair", () => {
    expect(normalizeTitle("  Fix the\n\tflaky   test ")).toBe("Fix the flaky test");
    expect(normalizeTitle("x".repeat(300))).toHaveLength(MAX_TITLE_CHARS);
    const emoji = normalizeTitle("😀".repeat(250));
    expect([...emoji]).toHaveLength(MAX_TITLE_CHARS);
    expect(emoji.endsWith("😀")).toBe(true);
    expect(normalizeTitle(" \n ")).toBe("");
  });

  it("lets session/set_title params reject a title that is missing, null, not a string or empty once normalized", () => {
    expect(zSetTitle.safeParse({ sessionId: "s", title: "ok" }).success).toBe(true);
    for (const title of [undefined, null, 42, "", "   \n"]) {
      expect(zSetTitle.safeParse({ sessionId: "s", ...(title === undefined ? {} : { title }) }).success).toBe(false);
    }
  });
});

describe("entryOf (what the search index keeps of a message)", () => {
  it("keeps the text of user and assistant messages and nothing of tool or system messages", () => {
    expect(entryOf({ role: "user", content: [{ type: "text", text: "find the bug" }, { type: "image_url", image_url: { url: "data:," } }] })).toEqual({
      role: "user",
      text: "find the bug",
    });
    expect(entryOf({ role: "assistant", content: "It was an off-by-one." })).toEqual({ role: "agent", text: "It was an off-by-one." });
    expect(entryOf({ role: "assistant", content: null, tool_calls: [] })).toBeNull();
    expect(entryOf({ role: "tool", tool_call_id: "c", content: "file contents" })).toBeNull();
    expect(entryOf({ role: "system", content: "You are Hermes" })).toBeNull();
    expect(entryOf({ role: "user", content: "y".repeat(MAX_ENTRY_CHARS + 10) })!.text).toHaveLength(MAX_ENTRY_CHARS);
  });
});
