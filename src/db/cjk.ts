/**
 * What counts as Chinese, Japanese or Korean text for search. FTS5's
 * unicode61 tokenizer makes a whole run of these characters one token (they
 * are written without spaces), so a word inside a sentence is never found
 * through it; text holding any of them is also indexed by trigram (see the
 * custom migration `migrations/*_search_trigram.sql`, whose conditions are
 * `cjkSqlCondition()`'s, checked by a unit test).
 */
import { utf8Bytes } from "@hermes-edge/protocol";

/** Code point ranges, inclusive: Han, kana, Hangul, Bopomofo and their extensions; the commonest first (SQL tests them in this order). */
export const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0x3041, 0x309f], // Hiragana
  [0x30a1, 0x30ff], // Katakana (with the prolonged sound mark ー)
  [0xac00, 0xd7a3], // Hangul Syllables
  [0x3005, 0x3007], // 々 〆 〇
  [0x3400, 0x4dbf], // CJK Unified Ideographs Extension A
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
  [0xff66, 0xffdc], // Halfwidth Katakana and Hangul
  [0x1100, 0x11ff], // Hangul Jamo
  [0x3131, 0x318e], // Hangul Compatibility Jamo
  [0xa960, 0xa97f], // Hangul Jamo Extended-A
  [0xd7b0, 0xd7ff], // Hangul Jamo Extended-B
  [0x3105, 0x312f], // Bopomofo
  [0x31f0, 0x31ff], // Katakana Phonetic Extensions
  [0x1b000, 0x1b16f], // Kana Supplement and Extended-A
  [0x20000, 0x323af], // CJK Unified Ideographs Extensions B–H, Compatibility Supplement
];

const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
const CLASS = CJK_RANGES.map(([from, to]) => `${hex(from)}-${hex(to)}`).join("");
const CJK_CHAR = new RegExp(`[${CLASS}]`, "u");
/** A word split where it changes between CJK and other letters: `用Redis缓存` → 用, Redis, 缓存. */
const SCRIPT_RUN = new RegExp(`[${CLASS}]+|[^${CLASS}]+`, "gu");

export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** `word` cut into its CJK and non-CJK runs, in order. */
export function scriptRuns(word: string): string[] {
  return word.match(SCRIPT_RUN) ?? [];
}

/** D1 refuses a LIKE or GLOB pattern longer than this (in UTF-8 bytes). */
export const D1_MAX_PATTERN_BYTES = 50;

/**
 * An SQL condition that holds when `column` has a CJK character: GLOB
 * character classes compare code points, and the ranges are spread over
 * several patterns to keep each within D1's pattern limit.
 */
export function cjkSqlCondition(column: string): string {
  const patterns: string[] = [];
  let ranges = "";
  for (const [from, to] of CJK_RANGES) {
    const range = `${String.fromCodePoint(from)}-${String.fromCodePoint(to)}`;
    if (ranges && utf8Bytes(`*[${ranges}${range}]*`) > D1_MAX_PATTERN_BYTES) {
      patterns.push(`*[${ranges}]*`);
      ranges = "";
    }
    ranges += range;
  }
  patterns.push(`*[${ranges}]*`);
  return `(${patterns.map((p) => `${column} GLOB '${p}'`).join(" OR ")})`;
}
