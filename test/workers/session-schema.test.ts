/**
 * A new session object builds its schema in one step (`FRESH_SCHEMA` in
 * session-store.ts) instead of replaying every migration; both must give the
 * same tables, columns and indexes, or an object made today would differ from
 * one migrated over the years.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/session/session-store.js";

type Shape = Record<string, { columns: unknown[]; indexes: unknown[] }>;

function schemaOf(migrateFresh: boolean): Promise<Shape> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`schema-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => {
    const sql = ctx.storage.sql;
    // The object's own constructor has migrated already: start from an empty store.
    for (const { name } of sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`).toArray()) {
      sql.exec(`DROP TABLE "${name}"`);
    }
    new SessionStore(sql).migrate({ fresh: migrateFresh });
    const shape: Shape = {};
    const tables = sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`).toArray();
    for (const { name } of tables) {
      shape[name] = {
        columns: sql.exec(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid`, name).toArray(),
        indexes: sql
          .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`, name)
          .toArray()
          .map((index) => ({ index: index.name, columns: sql.exec(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`, index.name).toArray() })),
      };
    }
    return shape;
  });
}

describe("a session object's schema", () => {
  it("is the same built in one step for a new object as built by every migration in turn", async () => {
    const fresh = await schemaOf(true);
    const migrated = await schemaOf(false);
    expect(Object.keys(fresh)).toContain("prompt_content");
    expect(fresh.history!.columns.length).toBe(4);
    expect(fresh).toEqual(migrated);
  });
});
