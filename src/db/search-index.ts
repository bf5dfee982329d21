/**
 * The `session_search` index in D1: message rows in `search_entries`, searched
 * through the FTS5 table `search_fts` over them (see the custom migration).
 * Every read is scoped to one tenant and joined with the session index, so a
 * deleted session (or another tenant's) can never come back as a hit.
 */
import { eq, sql } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { searchEntries, type NewSearchEntry } from "../../schema/search-entries.js";
import { ftsMatchExpression } from "./fts-query.js";

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/** FTS5 counts a snippet in tokens, and one token can be a whole pasted blob: hits are cut to this around the match. */
export const MAX_SNIPPET_CHARS = 400;
/** D1 binds at most 100 parameters per statement; an entry row takes 6. */
const ROWS_PER_INSERT = 16;

export interface SearchHit {
  sessionId: string;
  title: string | null;
  cwd: string;
  updatedAt: string;
  /** The text around the best match, matched words in `**`. */
  snippet: string;
}

interface HitRow {
  session_id: string;
  title: string | null;
  cwd: string;
  updated_at: number;
  snippet: string;
}

export class SearchIndex {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /** Adds entries in one batch; an entry already indexed for its session (same digest) is skipped. */
  async add(entries: NewSearchEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const inserts = [];
    for (let i = 0; i < entries.length; i += ROWS_PER_INSERT) {
      inserts.push(this.#db.insert(searchEntries).values(entries.slice(i, i + ROWS_PER_INSERT)).onConflictDoNothing());
    }
    await this.#db.batch(inserts as [(typeof inserts)[number], ...typeof inserts]);
  }

  /** `session/delete`: the session leaves the index (its FTS rows go with them, by trigger). */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#db.delete(searchEntries).where(eq(searchEntries.sessionId, sessionId));
  }

  /**
   * The tenant's sessions that best match `query`, one hit per session (its best
   * match), best first. `excludeSessionId` is the asking session, never returned;
   * for a sub-agent, neither are the sessions it was delegated from (its parent,
   * and theirs up to the first that is not a sub-agent): their work is its own task's.
   */
  async search(tenant: string, query: string, options: { limit?: number; excludeSessionId?: string } = {}): Promise<SearchHit[]> {
    const match = ftsMatchExpression(query);
    if (!match) return [];
    const limit = Math.min(Math.max(options.limit ?? DEFAULT_SEARCH_LIMIT, 1), MAX_SEARCH_LIMIT);
    // Snippets and ranks are computed inside the full-text query; the window then keeps each session's best row.
    const rows = await this.#db.all<HitRow>(sql`
      WITH RECURSIVE asking(id) AS (
        SELECT ${options.excludeSessionId ?? ""}
        UNION
        SELECT s.parent_id FROM sessions s JOIN asking a ON s.id = a.id
        WHERE s.tenant = ${tenant} AND s.kind = 'subagent' AND s.parent_id IS NOT NULL
      ),
      hits AS (
        SELECT e.session_id AS session_id,
               snippet(search_fts, 0, '**', '**', '…', 16) AS snippet,
               bm25(search_fts) AS score
        FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid
        WHERE search_fts MATCH ${match} AND e.tenant = ${tenant} AND e.session_id NOT IN (SELECT id FROM asking)
      ),
      best AS (
        SELECT session_id, snippet, score, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY score) AS n FROM hits
      )
      SELECT b.session_id, s.title, s.cwd, s.updated_at, b.snippet
      FROM best b JOIN sessions s ON s.id = b.session_id AND s.tenant = ${tenant}
      WHERE b.n = 1
      ORDER BY b.score, s.updated_at DESC
      LIMIT ${limit}`);
    return rows.map((r) => ({
      sessionId: r.session_id,
      title: r.title,
      cwd: r.cwd,
      updatedAt: new Date(r.updated_at).toISOString(),
      snippet: boundedSnippet(r.snippet),
    }));
  }
}

/** `snippet` cut to `MAX_SNIPPET_CHARS`, starting a little before its first match, never inside a surrogate pair. */
export function boundedSnippet(snippet: string): string {
  if (snippet.length <= MAX_SNIPPET_CHARS) return snippet;
  const match = Math.max(snippet.indexOf("**"), 0);
  let start = Math.max(0, Math.min(match - MAX_SNIPPET_CHARS / 4, snippet.length - MAX_SNIPPET_CHARS));
  if (isLowSurrogate(snippet.charCodeAt(start))) start += 1;
  let end = start + MAX_SNIPPET_CHARS;
  if (isLowSurrogate(snippet.charCodeAt(end))) end -= 1;
  return `${start > 0 ? "…" : ""}${snippet.slice(start, end)}${end < snippet.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
