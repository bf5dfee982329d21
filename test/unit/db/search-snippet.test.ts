import { describe, expect, it } from "vitest";
import { boundedSnippet, MAX_SNIPPET_CHARS } from "../../../src/db/search-index.js";

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
