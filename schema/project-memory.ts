/**
 * What the agent keeps about a project: one row per tenant and workspace (cwd),
 * its entries as a JSON array (bounded at 4,000 characters, so one row is
 * plenty). `version` makes concurrent edits from two sessions safe: a write
 * succeeds only against the version it read.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const projectMemory = sqliteTable(
  "project_memory",
  {
    tenant: text("tenant").notNull(),
    cwd: text("cwd").notNull(),
    entries: text("entries", { mode: "json" }).$type<string[]>().notNull().default([]),
    version: integer("version").notNull().default(0),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.cwd] })],
);

export type ProjectMemoryRow = typeof projectMemory.$inferSelect;
