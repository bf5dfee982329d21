/**
 * Which index answers a search. A query without Chinese, Japanese or Korean
 * text goes to `search_fts` (porter stemming over unicode61 words) exactly as
 * it always has. A query with CJK text is matched by substring: its words are
 * cut where the script changes (用Redis缓存 → 用, Redis, 缓存) and every piece
 * must appear in the message, through the trigram index `search_trigram` for
 * pieces of three or more characters and through LIKE for shorter ones.
 * Two-character words (数据, 缓存, 서버) are the commonest in Chinese and
 * Korean, and trigrams cannot hold them: with a longer piece beside them they
 * only filter its matches; alone, they are found by scanning the tenant's
 * newest `MAX_SCANNED_ENTRIES` messages (a bound on the query's time; at
 * ~600 MB/s, measured in workerd, that is well under a second for usual messages).
 */
import { hasCjk, scriptRuns } from "./cjk.js";
import { ftsMatchExpression, MAX_QUERY_TERMS, quotedTerms, WORD } from "./fts-query.js";

/** Trigram needs this many characters (code points) in a piece to match it through its index. */
export const TRIGRAM_MIN_CHARS = 3;
/** A longer piece is cut to its first this many characters: a long pasted sentence stays a bounded query. */
export const MAX_SUBSTRING_CHARS = 32;
/** A query of only one- and two-character pieces looks through at most this many of the tenant's newest messages. */
export const MAX_SCANNED_ENTRIES = 50_000;

export type SearchPlan =
  /** `search_fts MATCH match`, ranked by bm25, snippets from FTS5. */
  | { kind: "words"; match: string }
  /** `search_trigram MATCH match`, ranked by bm25, each row also `LIKE` every pattern in `likes`. */
  | { kind: "trigram"; match: string; likes: string[]; terms: string[] }
  /** The tenant's newest entries `LIKE` every pattern, ranked by how often the pieces occur. */
  | { kind: "scan"; likes: string[]; terms: string[] };

/** How `query` is searched, or null when it has no letter or digit to search for. */
export function searchPlan(query: string): SearchPlan | null {
  const terms = substringTerms(query);
  if (terms.length === 0) return null;
  if (!terms.some(hasCjk)) return { kind: "words", match: ftsMatchExpression(query)! };
  const long = terms.filter((t) => charCount(t) >= TRIGRAM_MIN_CHARS);
  const likes = terms.filter((t) => charCount(t) < TRIGRAM_MIN_CHARS).map(likePattern);
  return long.length > 0 ? { kind: "trigram", match: quotedTerms(long), likes, terms } : { kind: "scan", likes, terms };
}

/** The pieces a CJK query must contain: script runs of its words, cut, deduplicated without regard to case, at most `MAX_QUERY_TERMS`. */
export function substringTerms(query: string): string[] {
  const seen = new Map<string, string>();
  for (const word of query.match(WORD) ?? []) {
    for (const run of scriptRuns(word)) {
      const piece = [...run].slice(0, MAX_SUBSTRING_CHARS).join("");
      if (!seen.has(piece.toLowerCase())) seen.set(piece.toLowerCase(), piece);
    }
  }
  return [...seen.values()].slice(0, MAX_QUERY_TERMS);
}

/** `%piece%` for `LIKE … ESCAPE '\'`: `_` is a word character and a LIKE wildcard. */
export function likePattern(piece: string): string {
  return `%${piece.replace(/[\\%_]/g, "\\$&")}%`;
}

function charCount(text: string): number {
  return [...text].length;
}
