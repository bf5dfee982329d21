import { describe, expect, it } from "vitest";
import { ftsMatchExpression, MAX_QUERY_TERMS } from "../../../src/db/fts-query.js";

describe("ftsMatchExpression", () => {
  it("quotes every word so FTS5 operators and punctuation are searched literally", () => {
    expect(ftsMatchExpression("flaky test")).toBe('"flaky" "test"');
    expect(ftsMatchExpression('foo-bar AND "baz" NEAR(x) col:y*')).toBe('"foo" "bar" "AND" "baz" "NEAR" "x" "col" "y"');
    expect(ftsMatchExpression("café naïve 東京")).toBe('"café" "naïve" "東京"');
  });

  it("drops duplicate words, keeps at most MAX_QUERY_TERMS, and is null without a word", () => {
    expect(ftsMatchExpression("a a b")).toBe('"a" "b"');
    const many = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    expect(ftsMatchExpression(many)!.split(" ")).toHaveLength(MAX_QUERY_TERMS);
    expect(ftsMatchExpression("  !!! ** ")).toBeNull();
  });
});
