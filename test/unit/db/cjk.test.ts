import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CJK_RANGES, cjkSqlCondition, D1_MAX_PATTERN_BYTES, hasCjk, scriptRuns } from "../../../src/db/cjk.js";

const MIGRATIONS = join(import.meta.dirname, "../../../migrations");

describe("CJK text", () => {
  it("is Han, kana and Hangul, astral ideographs included; not Latin, Cyrillic, or CJK punctuation", () => {
    for (const text of ["数据", "ファイル", "ひらがな", "데이터", "𠮷", "々", "ｶﾀｶﾅ", "ㄅㄆ"]) expect(hasCjk(text), text).toBe(true);
    for (const text of ["timeout", "Ошибка", "café", "。，！「」", "　", "123"]) expect(hasCjk(text), text).toBe(false);
  });

  it("splits a word where it changes script", () => {
    expect(scriptRuns("用Redis缓存")).toEqual(["用", "Redis", "缓存"]);
    expect(scriptRuns("𠮷野家v2")).toEqual(["𠮷野家", "v2"]);
  });

  it("is what the trigram migration's triggers and back-fill test, in patterns D1 accepts", () => {
    const file = readdirSync(MIGRATIONS).find((f) => f.endsWith("_search_trigram.sql"))!;
    const sql = readFileSync(join(MIGRATIONS, file), "utf8");
    expect(sql).toContain(`WHEN ${cjkSqlCondition("new.`text`")} BEGIN`);
    expect(sql).toContain(`WHEN ${cjkSqlCondition("old.`text`")} BEGIN`);
    expect(sql).toContain(`WHERE ${cjkSqlCondition("`text`")};`);
    const patterns = [...cjkSqlCondition("t").matchAll(/GLOB '([^']*)'/g)].map((m) => m[1]!);
    for (const p of patterns) expect(new TextEncoder().encode(p).length).toBeLessThanOrEqual(D1_MAX_PATTERN_BYTES);
    // Every range's ends sit in some pattern's class.
    for (const [from, to] of CJK_RANGES) {
      expect(patterns.some((p) => p.includes(`${String.fromCodePoint(from)}-${String.fromCodePoint(to)}`))).toBe(true);
    }
  });
});
