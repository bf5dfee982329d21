import { describe, expect, it } from "vitest";
import { boundedForModel, firstChangedLine, previewBlock, truncateText } from "../../../src/tools/render.js";

describe("truncateText", () => {
  it.each([
    ["short", 10, "short", 0],
    ["abcdefghij", 4, "abcd", 6],
    ["line1\nline2\nline3", 13, "line1\nline2\n", 5],
    ["line1\nline2\nline3", 16, "line1\nline2\nline", 1],
    // A line break just past the limit is not kept: never more than `limit` characters.
    ["line1\nline2\nline3", 11, "line1\nline2", 6],
    ["aaaaaaaaa\nb", 5, "aaaaa", 6],
    ["ab😀cd", 3, "ab", 4],
  ])("cuts %j at %d", (text, limit, kept, omitted) => {
    expect(truncateText(text, limit)).toEqual({ text: kept, truncated: omitted > 0, omitted });
  });
});

describe("boundedForModel and previewBlock", () => {
  it("leave short text alone", () => {
    expect(boundedForModel("ok", "hint").text).toBe("ok");
    expect(previewBlock("ok")).toEqual({ type: "content", content: { type: "text", text: "ok" } });
  });

  it("say how much was cut", () => {
    expect(boundedForModel("x".repeat(12), "Read less.", 10).text).toBe(
      "xxxxxxxxxx\n\n[Truncated: 2 more characters not included (limit 10). Read less.]",
    );
    expect(previewBlock("y".repeat(6_500))).toEqual({
      type: "content",
      content: { type: "text", text: `${"y".repeat(5_000)}\n… 1,500 more characters not shown` },
    });
  });
});

describe("firstChangedLine", () => {
  it.each([
    ["a\nb\nc", "a\nB\nc", 2],
    ["", "new", 1],
    ["a\n", "a\nb\n", 2],
    ["same", "same", 1],
  ])("%j → %j changes at line %d", (before, after, line) => {
    expect(firstChangedLine(before, after)).toBe(line);
  });
});
