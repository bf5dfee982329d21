/**
 * `JsonRow` on a real Durable Object's SQLite: what the connection's state and a
 * sub-agent's task record keep. A saved document is read back by a new
 * instance (as after a restart), it is read from SQLite once, and rows stored
 * before it existed (same table and column) still read.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { JsonRow } from "../../src/json-row.js";

function inObject<R>(run: (sql: SqlStorage) => R): Promise<R> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`json-row-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => run(ctx.storage.sql));
}

describe("JsonRow", () => {
  it("keeps one document: saved, read back by a new instance, cleared", () =>
    inObject((sql) => {
      const row = new JsonRow<{ n: number; tags: string[] }>(sql, "test_doc", "body");
      expect(row.get()).toBeNull();
      row.save({ n: 1, tags: ["a"] });
      row.save({ n: 2, tags: ["b"] });
      expect(new JsonRow(sql, "test_doc", "body").get()).toEqual({ n: 2, tags: ["b"] });
      expect(sql.exec(`SELECT COUNT(*) AS n FROM test_doc`).one().n).toBe(1);
      row.clear();
      expect(row.get()).toBeNull();
      expect(new JsonRow(sql, "test_doc", "body").get()).toBeNull();
    }));

  it("reads SQLite once, then answers from memory", () =>
    inObject((sql) => {
      new JsonRow(sql, "test_doc", "value").save({ v: "stored" });
      const row = new JsonRow<{ v: string }>(sql, "test_doc", "value");
      expect(row.get()).toEqual({ v: "stored" });
      sql.exec(`DELETE FROM test_doc`); // behind its back: the cached document stands
      expect(row.get()).toEqual({ v: "stored" });
    }));

  it("reads a row a table of the same shape held before it (the connection_state and subagent_task tables)", () =>
    inObject((sql) => {
      sql.exec(`CREATE TABLE IF NOT EXISTS connection_state (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
      sql.exec(`INSERT OR REPLACE INTO connection_state (id, value) VALUES (1, ?)`, JSON.stringify({ tenant: "t", sessions: ["s"] }));
      expect(new JsonRow(sql, "connection_state", "value").get()).toEqual({ tenant: "t", sessions: ["s"] });
    }));
});
