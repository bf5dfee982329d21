/**
 * The text `session_search` looks through: one row per user or agent message
 * of a session, fed as turns end. The FTS5 index over `text` is a virtual
 * table drizzle cannot model; it is created with its sync triggers in a
 * custom migration (`migrations/*_search_fts.sql`), external-content style,
 * so this table stays the one source and deleting a session's rows here
 * removes them from the index too.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const searchEntries = sqliteTable(
  "search_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tenant: text("tenant").notNull(),
    sessionId: text("session_id").notNull(),
    role: text("role", { enum: ["user", "agent"] }).notNull(),
    text: text("text").notNull(),
    /** SHA-256 of role and text: a message copied by compaction or a fork is indexed once per session. */
    digest: text("digest").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("search_entries_session_digest").on(t.sessionId, t.digest), index("search_entries_tenant").on(t.tenant)],
);

export type NewSearchEntry = typeof searchEntries.$inferInsert;
