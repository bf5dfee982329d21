import { describe, expect, it } from "vitest";
import { ftsMatchExpression, MAX_QUERY_TERMS } from "../../../src/db/fts-query.js";
import { likePattern, MAX_SUBSTRING_CHARS, searchPlan, substringTerms } from "../../../src/db/search-plan.js";

describe("searchPlan", () => {
  it("sends a query without CJK text to the word index, exactly as before", () => {
    for (const q of ["flaky test", 'foo-bar AND "baz" NEAR(x) col:y*', "café naïve", "Ошибка сети", "a a b"]) {
      expect(searchPlan(q)).toEqual({ kind: "words", match: ftsMatchExpression(q) });
    }
  });

  it("has nothing to search in punctuation, Latin or CJK (。，！「」、・ and the ideographic space)", () => {
    for (const q of ["  !!! ** ", "++ --", "。，！", "「」、・　？：；（）【】《》"]) expect(searchPlan(q)).toBeNull();
  });

  it("matches a CJK word of three or more characters through the trigram index", () => {
    expect(searchPlan("数据库")).toEqual({ kind: "trigram", match: '"数据库"', likes: [], terms: ["数据库"] });
    expect(searchPlan("ファイル 데이터베이스")).toEqual({
      kind: "trigram",
      match: '"ファイル" "데이터베이스"',
      likes: [],
      terms: ["ファイル", "데이터베이스"],
    });
  });

  it("lets shorter pieces filter the trigram matches with LIKE, and scans when every piece is short", () => {
    expect(searchPlan("数据库 缓存")).toEqual({ kind: "trigram", match: '"数据库"', likes: ["%缓存%"], terms: ["数据库", "缓存"] });
    expect(searchPlan("数据")).toEqual({ kind: "scan", likes: ["%数据%"], terms: ["数据"] });
    expect(searchPlan("数据 db 库")).toEqual({ kind: "scan", likes: ["%数据%", "%db%", "%库%"], terms: ["数据", "db", "库"] });
  });

  it("matches every word of a mixed query by substring, cutting words where the script changes", () => {
    expect(searchPlan("数据库 timeout")).toEqual({ kind: "trigram", match: '"数据库" "timeout"', likes: [], terms: ["数据库", "timeout"] });
    expect(substringTerms("用Redis缓存，Redis！")).toEqual(["用", "Redis", "缓存"]);
    expect(substringTerms("第3版 v2")).toEqual(["第", "3", "版", "v2"]);
  });

  it("counts characters, not UTF-16 units: two astral ideographs are a short piece", () => {
    expect(searchPlan("𠮷野")).toEqual({ kind: "scan", likes: ["%𠮷野%"], terms: ["𠮷野"] });
    expect(searchPlan("𠮷野家")).toMatchObject({ kind: "trigram", match: '"𠮷野家"' });
  });

  it("bounds a long CJK query: each piece to its first MAX_SUBSTRING_CHARS characters, at most MAX_QUERY_TERMS pieces", () => {
    const sentence = "我们的数据库连接失败了".repeat(50);
    const [piece] = substringTerms(sentence);
    expect([...piece!]).toHaveLength(MAX_SUBSTRING_CHARS);
    expect(sentence.startsWith(piece!)).toBe(true);
    const astral = "𠮷".repeat(100);
    expect(substringTerms(astral)).toEqual(["𠮷".repeat(MAX_SUBSTRING_CHARS)]);
    const many = Array.from({ length: 40 }, (_, i) => `词${i}`).join(" ");
    expect(substringTerms(many)).toHaveLength(MAX_QUERY_TERMS);
  });

  it("drops repeated pieces without regard to case", () => {
    expect(substringTerms("数据库 TIMEOUT timeout 数据库")).toEqual(["数据库", "TIMEOUT"]);
  });

  it("escapes LIKE's wildcards, `_` being a word character", () => {
    expect(likePattern("a_")).toBe("%a\\_%");
    expect(searchPlan("数据 a_")).toEqual({ kind: "scan", likes: ["%数据%", "%a\\_%"], terms: ["数据", "a_"] });
  });
});
