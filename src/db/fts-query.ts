/**
 * Turns what a user or the model typed into an FTS5 MATCH expression. FTS5 has
 * its own query syntax (AND, NEAR, column filters, `*`, quotes); free text fed
 * to it raw is a syntax error or, worse, a different query. Each word becomes a
 * quoted term, and all of them must match.
 */

/** Terms beyond this are dropped: longer queries only slow the search down. */
export const MAX_QUERY_TERMS = 16;

/** A searchable word: letters, digits and `_`. */
export const WORD = /[\p{L}\p{N}_]+/gu;

/** A quoted FTS5 string is literal; `"` inside one is doubled, though WORD never yields it. */
export function quotedTerms(terms: string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" ");
}

/** The MATCH expression for `query`, or null when it has no searchable word. */
export function ftsMatchExpression(query: string): string | null {
  const terms = [...new Set(query.match(WORD) ?? [])].slice(0, MAX_QUERY_TERMS);
  return terms.length === 0 ? null : quotedTerms(terms);
}
