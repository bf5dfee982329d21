/**
 * Segments ("Hermes sessions"): the stretches of one ACP session's history the
 * model saw. Compaction ends one (`end_reason: "compression"`) and starts a
 * continuation linked to it; forks and sub-agents link to their parent's.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const segments = sqliteTable(
  "segments",
  {
    id: text("id").primaryKey(),
    acpSessionId: text("acp_session_id").notNull(),
    tenant: text("tenant").notNull(),
    kind: text("kind", { enum: ["root", "continuation", "fork", "subagent"] }).notNull(),
    parentId: text("parent_id"),
    rootId: text("root_id").notNull(),
    status: text("status", { enum: ["active", "ended"] }).notNull().default("active"),
    endReason: text("end_reason"),
    compressionDepth: integer("compression_depth").notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    endedAt: integer("ended_at", { mode: "number" }),
  },
  (t) => [index("segments_acp_session").on(t.acpSessionId, t.createdAt), index("segments_parent").on(t.parentId)],
);

export type SegmentRow = typeof segments.$inferSelect;
export type NewSegmentRow = typeof segments.$inferInsert;
