/**
 * Migration 0006 on a database that already holds search entries: its
 * back-fill puts the existing rows with CJK text (only those) into the
 * trigram index, so they are found at once, and the delete trigger keeps
 * them in step afterwards. Run against real D1: the index and triggers are
 * dropped, rows are written as before 0006, and the migration's own
 * statements (as wrangler applies them) run again. Other files' entries share
 * the database, so the index is counted over this tenant's entries only.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SearchIndex } from "../../src/db/search-index.js";
import { seed, tenantOf } from "./search-client.js";

const entryIds = async (tenant: string) =>
  (await env.DB.prepare("SELECT id FROM search_entries WHERE tenant = ?").bind(tenant).all<{ id: number }>()).results.map((r) => r.id);
/** The trigram index's rows for these entries (deleted ones included: the index must drop them too). */
const trigramRows = async (ids: number[]) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM search_trigram_docsize WHERE id IN (${ids.map(() => "?").join(",")})`).bind(...ids).first<{ n: number }>())!.n;

describe("migration 0006 (search_trigram)", () => {
  it("back-fills the rows written before it, only those with CJK text, and keeps them in step after", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.includes("search_trigram"))!;
    expect(migration).toBeDefined();
    for (const statement of ["DROP TRIGGER search_entries_trigram_ai", "DROP TRIGGER search_entries_trigram_ad", "DROP TABLE search_trigram"]) {
      await env.DB.prepare(statement).run();
    }
    const tenant = tenantOf();
    const chinese = await seed(tenant, ["我们的数据库连接失败了", "plain English", "𠀀𠀁𠀂"]);
    const english = await seed(tenant, ["the database connection failed"]);

    for (const query of migration.queries) await env.DB.prepare(query).run();
    expect(await trigramRows(await entryIds(tenant))).toBe(2);
    const index = new SearchIndex(env.DB);
    for (const q of ["数据库", "数据", "𠀀𠀁𠀂", "连接失败 数据"]) expect((await index.search(tenant, q)).map((h) => h.sessionId), q).toEqual([chinese]);
    expect((await index.search(tenant, "database")).map((h) => h.sessionId)).toEqual([english]);

    const later = await seed(tenant, ["数据库又断了"]);
    const ids = await entryIds(tenant);
    expect(await trigramRows(ids)).toBe(3);
    await index.deleteSession(chinese);
    expect(await trigramRows(ids)).toBe(1);
    expect((await index.search(tenant, "数据库")).map((h) => h.sessionId)).toEqual([later]);
  });
});
