/**
 * `SearchIndex.search` ranks every match but makes snippets only for the rows
 * it returns. These tests hold it to the query it replaced, kept here as the
 * reference: bm25 and snippet() for every match, a window keeping each
 * session's best, then the same ordering (score, then the newest session).
 * Words, trigram (CJK) and scan (one- and two-character CJK) queries, several
 * limits, a sub-agent asking (its parent is never returned) and a fork asking
 * (the history it shares with its source is not found in the source).
 */
import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { sessions } from "../../schema/sessions.js";
import { SearchIndex } from "../../src/db/search-index.js";
import { searchPlan, type SearchPlan } from "../../src/db/search-plan.js";
import { boundedSnippet, substringSnippet } from "../../src/db/snippet.js";
import { tenantOf, uniqueWord } from "./search-client.js";

interface RefRow {
  session_id: string;
  title: string | null;
  cwd: string;
  updated_at: number;
  snippet: string | null;
  text: string | null;
}

/** The search as it was: every match ranked and snippeted, then one row per session. */
async function reference(tenant: string, query: string, limit: number, asking = ""): Promise<unknown[]> {
  const plan = searchPlan(query)!;
  const binds: unknown[] = [];
  const p = (v: unknown) => (binds.push(v), `?${binds.length}`);
  const inScope = `e.tenant = ${p(tenant)} AND e.session_id NOT IN (SELECT id FROM asking)${
    asking ? " AND NOT (e.session_id IN (SELECT id FROM lineage) AND e.digest IN (SELECT digest FROM held))" : ""
  }`;
  const likes = (patterns: string[]) => patterns.map((l) => ` AND e.text LIKE ${p(l)} ESCAPE '\\'`).join("");
  const hits = hitsSql(plan, inScope, p, likes);
  const sql = `
    WITH RECURSIVE asking(id) AS (
      SELECT ${p(asking)} UNION
      SELECT s.parent_id FROM sessions s JOIN asking a ON s.id = a.id WHERE s.tenant = ${p(tenant)} AND s.kind = 'subagent' AND s.parent_id IS NOT NULL
    ),
    held(digest) AS (SELECT digest FROM search_entries WHERE session_id IN (SELECT id FROM asking)),
    lineage(id) AS (SELECT id FROM sessions WHERE tenant = ${p(tenant)} AND root_id = (SELECT root_id FROM sessions WHERE tenant = ${p(tenant)} AND id = ${p(asking)})),
    hits AS (${hits}),
    best AS (SELECT session_id, entry_id, snippet, score, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY score) AS n FROM hits)
    SELECT b.session_id, s.title, s.cwd, s.updated_at, b.snippet, (SELECT text FROM search_entries WHERE id = b.entry_id) AS text
    FROM best b JOIN sessions s ON s.id = b.session_id AND s.tenant = ${p(tenant)}
    WHERE b.n = 1 ORDER BY b.score, s.updated_at DESC LIMIT ${p(limit)}`;
  const { results } = await env.DB.prepare(sql)
    .bind(...binds)
    .all<RefRow>();
  return results.map((r) => ({
    sessionId: r.session_id,
    title: r.title,
    cwd: r.cwd,
    updatedAt: new Date(r.updated_at).toISOString(),
    snippet: plan.kind === "words" ? boundedSnippet(r.snippet ?? "") : substringSnippet(r.text ?? "", plan.terms),
  }));
}

function hitsSql(plan: SearchPlan, inScope: string, p: (v: unknown) => string, likes: (patterns: string[]) => string): string {
  switch (plan.kind) {
    case "words":
      return `SELECT e.session_id, e.id AS entry_id, snippet(search_fts, 0, '**', '**', '…', 16) AS snippet, bm25(search_fts) AS score
        FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid WHERE search_fts MATCH ${p(plan.match)} AND ${inScope}`;
    case "trigram":
      return `SELECT e.session_id, e.id AS entry_id, NULL AS snippet, bm25(search_trigram) AS score
        FROM search_trigram JOIN search_entries e ON e.id = search_trigram.rowid WHERE search_trigram MATCH ${p(plan.match)} AND ${inScope}${likes(plan.likes)}`;
    case "scan": {
      const occurrences = plan.terms.map((t) => `(length(e.text) - length(replace(e.text, ${p(t)}, ''))) / ${[...t].length}`).join(" + ");
      return `SELECT e.session_id, e.id AS entry_id, NULL AS snippet, -(${occurrences}) AS score FROM search_entries e WHERE ${inScope}${likes(plan.likes)}`;
    }
  }
}

/** A small deterministic PRNG, so a failure can be run again as it was. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Seeded {
  id: string;
  kind?: "root" | "subagent" | "fork";
  parentId?: string;
  rootId?: string;
  texts: string[];
  /** Digests (by index) taken from another session: a fork's copy of its source's history. */
  digests?: string[];
}

async function seedAll(tenant: string, list: Seeded[]): Promise<void> {
  const db = drizzle(env.DB);
  const base = Date.UTC(2026, 0, 1);
  let entries = [];
  for (const [i, s] of list.entries()) {
    await db.insert(sessions).values({
      id: s.id, tenant, cwd: `/work/${i}`, title: `session ${i}`, model: "m", mode: "default",
      kind: s.kind ?? "root", parentId: s.parentId ?? null, rootId: s.rootId ?? s.id, createdAt: base, updatedAt: base + i * 1000,
    });
    entries.push(...s.texts.map((text, j) => ({ tenant, sessionId: s.id, role: "user" as const, text, digest: s.digests?.[j] ?? `${s.id}:${j}`, createdAt: base + j })));
  }
  const index = new SearchIndex(env.DB);
  for (; entries.length > 0; entries = entries.slice(64)) await index.add(entries.slice(0, 64));
}

describe("search ranks every match and snippets only the rows it returns", () => {
  it("gives the same hits, in the same order, with the same snippets as ranking and snippeting every match", async () => {
    const tenant = tenantOf();
    const [common, rare] = [uniqueWord(), uniqueWord()];
    const next = random(25);
    const filler = ["cache", "layer", "broken", "after", "the", "migration", "worker", "retry", "queue", "timeout", "config", "token"];
    const list: Seeded[] = [];
    for (let s = 0; s < 40; s++) {
      // Every message of a session a different length, so no two of its matches tie on bm25.
      const texts = Array.from({ length: 6 }, (_, m) => {
        const words = Array.from({ length: 8 + m * 7 + Math.floor(next() * 5) }, () => filler[Math.floor(next() * filler.length)]!);
        if (next() < 0.7) for (let k = 0; k < 1 + Math.floor(next() * 3); k++) words.splice(Math.floor(next() * words.length), 0, common);
        if (next() < 0.15) words.splice(Math.floor(next() * words.length), 0, rare);
        return words.join(" ");
      });
      list.push({ id: crypto.randomUUID(), texts });
    }
    await seedAll(tenant, list);
    const index = new SearchIndex(env.DB);
    for (const query of [common, rare, `${common} ${rare}`, `${common} timeout`, `"${common} cache"`, "retry"]) {
      for (const limit of [1, 5, 20]) {
        const got = await index.search(tenant, query, { limit });
        expect(got.length).toBeGreaterThan(0);
        expect(new Set(got.map((h) => h.sessionId)).size).toBe(got.length);
        expect(got, `${query}, limit ${limit}`).toEqual(await reference(tenant, query, limit));
      }
    }
    // Another tenant's search finds none of it.
    expect(await index.search(tenantOf(), common)).toEqual([]);
  });

  it("keeps the reference's exclusions: a sub-agent never finds its parent, a fork not its source's shared history", async () => {
    const tenant = tenantOf();
    const word = uniqueWord();
    const root = crypto.randomUUID();
    const child = crypto.randomUUID();
    const fork = crypto.randomUUID();
    const other = crypto.randomUUID();
    await seedAll(tenant, [
      { id: root, texts: [`the ${word} in the root`, `shared ${word} history line`] },
      { id: child, kind: "subagent", parentId: root, rootId: root, texts: [`child says ${word} twice ${word}`] },
      { id: fork, kind: "fork", parentId: root, rootId: root, texts: [`shared ${word} history line`, `fork only ${word} words here`], digests: [`${root}:1`] },
      { id: other, texts: [`${word} elsewhere`] },
    ]);
    const index = new SearchIndex(env.DB);
    for (const asking of [child, fork, root, other]) {
      const got = await index.search(tenant, word, { limit: 20, excludeSessionId: asking });
      expect(got, `asked by ${asking}`).toEqual(await reference(tenant, word, 20, asking));
      expect(got.map((h) => h.sessionId)).not.toContain(asking);
    }
    const byChild = await index.search(tenant, word, { limit: 20, excludeSessionId: child });
    expect(byChild.map((h) => h.sessionId)).not.toContain(root);
    const byFork = await index.search(tenant, word, { limit: 20, excludeSessionId: fork });
    expect(byFork.find((h) => h.sessionId === root)?.snippet).toContain(`the **${word}** in the root`);
  });

  it("matches the reference for CJK queries, through the trigram index and the scan", async () => {
    const tenant = tenantOf();
    const next = random(7);
    const han = "数据库连接失败缓存服务器部署回滚日志";
    const list: Seeded[] = Array.from({ length: 12 }, (_, s) => ({
      id: crypto.randomUUID(),
      texts: Array.from({ length: 4 }, (_, m) => {
        const pieces = Array.from({ length: 6 + m * 5 }, () => han.slice(Math.floor(next() * 16), Math.floor(next() * 16) + 3));
        if ((s + m) % 3 === 0) pieces.splice(Math.floor(next() * pieces.length), 0, "数据库连接");
        return `${pieces.join("")} Redis ${m}`;
      }),
    }));
    await seedAll(tenant, list);
    const index = new SearchIndex(env.DB);
    for (const query of ["数据库连接", "数据库 Redis", "缓存", "日志 部署"]) {
      for (const limit of [1, 5, 20]) {
        const got = await index.search(tenant, query, { limit });
        expect(got.length, query).toBeGreaterThan(0);
        expect(got, `${query}, limit ${limit}`).toEqual(await reference(tenant, query, limit));
      }
    }
  });
});
