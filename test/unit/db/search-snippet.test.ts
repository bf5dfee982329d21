import { describe, expect, it } from "vitest";
import { boundedSnippet, MAX_SNIPPET_CHARS, SUBSTRING_SNIPPET_CHARS, substringSnippet } from "../../../src/db/snippet.js";

describe("boundedSnippet", () => {
  it("leaves a short snippet as FTS5 made it", () => {
    expect(boundedSnippet("…the **loader** crashed…")).toBe("…the **loader** crashed…");
  });

  it("keeps the match, with some text before it, when a long run surrounds it", () => {
    const cut = boundedSnippet(`${"a".repeat(5_000)} **word** ${"b".repeat(5_000)}`);
    expect(cut.length).toBe(MAX_SNIPPET_CHARS + 2);
    expect(cut).toMatch(/^…a{99} \*\*word\*\* b/);
    expect(cut).toContain("**word**");
    expect(cut.endsWith("b…")).toBe(true);
  });

  it("never splits a surrogate pair at either end", () => {
    const cut = boundedSnippet(`${"😀".repeat(1_000)} **word** ${"😀".repeat(1_000)}`);
    expect(cut).toContain("**word**");
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("substringSnippet", () => {
  it("marks every occurrence of every piece in a window around the first, ignoring case", () => {
    expect(substringSnippet("我们的数据库连接timeout了，数据库", ["数据库", "TIMEOUT"])).toBe("我们的**数据库**连接**timeout**了，**数据库**");
  });

  it("prefers the longer piece where two overlap", () => {
    expect(substringSnippet("数据库的数据", ["数据", "数据库"])).toBe("**数据库**的**数据**");
  });

  it("shows SUBSTRING_SNIPPET_CHARS of a long message, a little before the match, with … where it cut", () => {
    const text = `${"前".repeat(5_000)}数据库${"后".repeat(5_000)}`;
    const cut = substringSnippet(text, ["数据库"]);
    expect(cut).toBe(`…${"前".repeat(SUBSTRING_SNIPPET_CHARS / 4)}**数据库**${"后".repeat((SUBSTRING_SNIPPET_CHARS * 3) / 4 - 3)}…`);
    expect(cut.length).toBeLessThanOrEqual(MAX_SNIPPET_CHARS + 2);
  });

  it("never splits a surrogate pair, whichever way the pairs line up with the window", () => {
    // An odd gap before (after) the match puts the window's start (end) inside a pair of the astral ideographs around it.
    for (const before of ["", "a"]) {
      for (const after of ["", "b"]) {
        const text = `${"𠮷".repeat(5_000)}${before}数据库${after}${"𠮷".repeat(3_000)}`;
        const cut = substringSnippet(text, ["数据库"]);
        expect(cut).toContain(`${before}**数据库**${after}`);
        expect(cut).not.toMatch(LONE_SURROGATE);
        expect(cut.length).toBeLessThanOrEqual(MAX_SNIPPET_CHARS + 2);
      }
    }
  });

  it("keeps a long match whole, and shows the start of the message when the match is not found by case folding", () => {
    const piece = "数".repeat(32);
    expect(substringSnippet(`${"a".repeat(200)}${piece}${"b".repeat(200)}`, [piece])).toContain(`**${piece}**`);
    expect(substringSnippet("短い文", ["ない"])).toBe("短い文");
  });
});
