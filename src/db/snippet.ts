/**
 * The text a search hit shows around its match, matched words in `**`. FTS5
 * makes it for word queries; for substring queries (CJK) it is made here from
 * the message, since a trigram snippet counts characters as tokens and never
 * marks the one- and two-character words matched through LIKE.
 */

/** FTS5 counts a snippet in tokens, and one token can be a whole pasted blob: hits are cut to this around the match. */
export const MAX_SNIPPET_CHARS = 400;
/** A substring hit's window: about what FTS5's 16-token snippet shows of a Latin sentence, in CJK text. */
export const SUBSTRING_SNIPPET_CHARS = 96;

/** `snippet` cut to `MAX_SNIPPET_CHARS`, starting a little before its first match, never inside a surrogate pair. */
export function boundedSnippet(snippet: string): string {
  if (snippet.length <= MAX_SNIPPET_CHARS) return snippet;
  const match = Math.max(snippet.indexOf("**"), 0);
  const start = pairStart(snippet, Math.max(0, Math.min(match - MAX_SNIPPET_CHARS / 4, snippet.length - MAX_SNIPPET_CHARS)));
  const end = pairEnd(snippet, start + MAX_SNIPPET_CHARS);
  return `${start > 0 ? "…" : ""}${snippet.slice(start, end)}${end < snippet.length ? "…" : ""}`;
}

/**
 * A window of `text` around the first occurrence of any of `terms` (ignoring
 * case), every occurrence inside it marked, `…` where text was cut; bounded
 * like an FTS5 snippet and never cut inside a surrogate pair.
 */
export function substringSnippet(text: string, terms: string[]): string {
  const longestFirst = [...terms].sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const matches = longestFirst.length > 0 ? [...text.matchAll(new RegExp(longestFirst.join("|"), "giu"))] : [];
  const first = matches[0];
  const at = first?.index ?? 0;
  // A match starts and ends on code point boundaries, so the pair-safe nudges below never cut into it.
  const start = pairStart(text, Math.max(0, Math.min(at - SUBSTRING_SNIPPET_CHARS / 4, text.length - SUBSTRING_SNIPPET_CHARS)));
  const end = pairEnd(text, Math.min(text.length, Math.max(start + SUBSTRING_SNIPPET_CHARS, at + (first?.[0].length ?? 0))));
  let out = start > 0 ? "…" : "";
  let from = start;
  for (const m of matches) {
    if (m.index + m[0].length > end) break;
    out += `${text.slice(from, m.index)}**${m[0]}**`;
    from = m.index + m[0].length;
  }
  return boundedSnippet(`${out}${text.slice(from, end)}${end < text.length ? "…" : ""}`);
}

/** `index`, moved past the second half of a surrogate pair if it points at one. */
function pairStart(text: string, index: number): number {
  return isLowSurrogate(text.charCodeAt(index)) ? index + 1 : index;
}

/** `index` as an exclusive end, moved back before a pair it would split. */
function pairEnd(text: string, index: number): number {
  return isLowSurrogate(text.charCodeAt(index)) ? index - 1 : index;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
