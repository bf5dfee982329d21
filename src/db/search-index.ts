/**
 * The `session_search` index in D1: message rows in `search_entries`, searched
 * through the FTS5 tables over them (see the custom migrations): `search_fts`
 * by word for most queries, `search_trigram` by substring for queries with
 * Chinese, Japanese or Korean text (search-plan.ts says which).
 * Every read is scoped to one tenant and joined with the session index, so a
 * deleted session (or another tenant's) can never come back as a hit.
 */
import { eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { searchEntries, type NewSearchEntry } from "../../schema/search-entries.js";
import { MAX_SCANNED_ENTRIES, searchPlan, type SearchPlan } from "./search-plan.js";
import { boundedSnippet, substringSnippet } from "./snippet.js";
import { readableFilter, type SessionIndexUpdate } from "./session-index.js";
import type { Principal } from "../session/access.js";

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
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
  /** FTS5's snippet (word queries). */
  snippet: string | null;
  /** The best entry's text (substring queries make their snippet from it). */
  text: string | null;
}

export class SearchIndex {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /**
   * Adds entries in one batch; an entry already indexed for its session (same digest) is skipped.
   * `alongside` (the session's pending index write) goes in the same round trip.
   */
  async add(entries: NewSearchEntry[], alongside?: SessionIndexUpdate): Promise<void> {
    if (entries.length === 0) return;
    const statements: BatchItem<"sqlite">[] = [];
    for (let i = 0; i < entries.length; i += ROWS_PER_INSERT) {
      statements.push(this.#db.insert(searchEntries).values(entries.slice(i, i + ROWS_PER_INSERT)).onConflictDoNothing());
    }
    if (alongside) statements.push(alongside);
    await this.#db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
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
   * Nor does the asking session find, in the sessions of its own lineage (a fork
   * and its source share a root), the messages it holds itself: a fork's copy of
   * its source's history would otherwise find the source its own words, and the
   * source the fork's copy of them.
   */
  async search(tenant: string, query: string, options: { limit?: number; excludeSessionId?: string; readableBy?: Principal } = {}): Promise<SearchHit[]> {
    const plan = searchPlan(query);
    if (!plan) return [];
    const limit = Math.min(Math.max(options.limit ?? DEFAULT_SEARCH_LIMIT, 1), MAX_SEARCH_LIMIT);
    const asking = options.excludeSessionId ?? "";
    const notHeld = options.excludeSessionId
      ? sql` AND NOT (e.session_id IN (SELECT id FROM lineage) AND e.digest IN (SELECT digest FROM held))`
      : sql``;
    const inScope = sql`e.tenant = ${tenant} AND e.session_id NOT IN (SELECT id FROM asking)${notHeld}`;
    // Only ranks are computed per match; the window keeps each session's best, and FTS5's snippet (or the
    // entry's text) is made afterwards for the `limit` rows returned, through a MATCH restricted to that row.
    const rows = await this.#db.all<HitRow>(sql`
      WITH RECURSIVE asking(id) AS (
        SELECT ${asking}
        UNION
        SELECT s.parent_id FROM sessions s JOIN asking a ON s.id = a.id
        WHERE s.tenant = ${tenant} AND s.kind = 'subagent' AND s.parent_id IS NOT NULL
      ),
      -- By session id, through (session_id, digest): a tenant filter here would read all of the tenant's entries.
      held(digest) AS (SELECT digest FROM search_entries WHERE session_id IN (SELECT id FROM asking)),
      lineage(id) AS (
        SELECT id FROM sessions WHERE tenant = ${tenant} AND root_id = (SELECT root_id FROM sessions WHERE tenant = ${tenant} AND id = ${asking})
      ),
      hits AS (${hitsOf(plan, tenant, inScope)}),
      best AS (
        SELECT session_id, entry_id, score, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY score) AS n FROM hits
      ),
      -- MATERIALIZED: flattened into the outer query, the snippet column would be made for every session before the LIMIT.
      top AS MATERIALIZED (
        SELECT b.session_id, b.entry_id, b.score, s.title, s.cwd, s.updated_at
        FROM best b JOIN sessions s ON s.id = b.session_id AND s.tenant = ${tenant}
        WHERE b.n = 1${readableFilter(tenant, options.readableBy)}
        ORDER BY b.score, s.updated_at DESC
        LIMIT ${limit}
      )
      SELECT t.session_id, t.title, t.cwd, t.updated_at, ${shownOf(plan)}
      FROM top t
      ORDER BY t.score, t.updated_at DESC`);
    return rows.map((r) => ({
      sessionId: r.session_id,
      title: r.title,
      cwd: r.cwd,
      updatedAt: new Date(r.updated_at).toISOString(),
      snippet: plan.kind === "words" ? boundedSnippet(r.snippet ?? "") : substringSnippet(r.text ?? "", plan.terms),
    }));
  }
}

/** Every in-scope entry matching `plan`: its session, id and score (lower is better). */
function hitsOf(plan: SearchPlan, tenant: string, inScope: SQL): SQL {
  switch (plan.kind) {
    case "words":
      return sql`
        SELECT e.session_id AS session_id, e.id AS entry_id, bm25(search_fts) AS score
        FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid
        WHERE search_fts MATCH ${plan.match} AND ${inScope}`;
    case "trigram":
      return sql`
        SELECT e.session_id AS session_id, e.id AS entry_id, bm25(search_trigram) AS score
        FROM search_trigram JOIN search_entries e ON e.id = search_trigram.rowid
        WHERE search_trigram MATCH ${plan.match} AND ${inScope}${likesOf(plan.likes)}`;
    case "scan": {
      // No index holds pieces this short: the newest entries are read, and the more often the pieces occur, the better.
      const occurrences = sql.join(
        plan.terms.map((t) => sql`(length(e.text) - length(replace(e.text, ${t}, ''))) / ${[...t].length}`),
        sql` + `,
      );
      return sql`
        SELECT e.session_id AS session_id, e.id AS entry_id, -(${occurrences}) AS score
        FROM search_entries e
        WHERE e.id >= (SELECT min(id) FROM (SELECT id FROM search_entries WHERE tenant = ${tenant} ORDER BY id DESC LIMIT ${MAX_SCANNED_ENTRIES}))
          AND ${inScope}${likesOf(plan.likes)}`;
    }
  }
}

/**
 * What a returned row shows, made for that row only: FTS5's snippet through the same MATCH narrowed to the
 * entry's rowid (a snippet depends only on the row and the query, so it is the one a full match would give),
 * or the entry's text, from which substring queries make their own.
 */
function shownOf(plan: SearchPlan): SQL {
  return plan.kind === "words"
    ? sql`(SELECT snippet(search_fts, 0, '**', '**', '…', 16) FROM search_fts WHERE search_fts MATCH ${plan.match} AND search_fts.rowid = t.entry_id) AS snippet, NULL AS text`
    : sql`NULL AS snippet, (SELECT text FROM search_entries WHERE id = t.entry_id) AS text`;
}

function likesOf(patterns: string[]): SQL {
  return sql.join(patterns.map((p) => sql` AND e.text LIKE ${p} ESCAPE '\\'`));
}
