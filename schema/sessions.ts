/**
 * The D1 session index: one row per session (root, sub-agent or fork) so a
 * tenant can list its sessions and walk their lineage without waking objects.
 * The session object owns the content; this table only indexes it.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tenant: text("tenant").notNull(),
    cwd: text("cwd").notNull(),
    additionalDirectories: text("additional_directories", { mode: "json" }).$type<string[]>().notNull().default([]),
    title: text("title"),
    model: text("model").notNull(),
    mode: text("mode").notNull(),
    kind: text("kind", { enum: ["root", "subagent", "fork"] }).notNull().default("root"),
    parentId: text("parent_id"),
    rootId: text("root_id").notNull(),
    /** The user who made it (a sub-agent: its parent's owner); null when an admin key made it. */
    owner: text("owner"),
    /** The session whose shares apply: null for itself (roots, forks), the parent's access root for a sub-agent. */
    accessRoot: text("access_root"),
    status: text("status", { enum: ["active", "closed", "ended"] }).notNull().default("active"),
    endReason: text("end_reason"),
    /** `session/archive`: hidden from `session/list` unless its `archived` filter asks. */
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    index("sessions_tenant_updated").on(t.tenant, t.updatedAt, t.id),
    index("sessions_tenant_cwd_updated").on(t.tenant, t.cwd, t.updatedAt, t.id),
    index("sessions_tenant_archived_updated").on(t.tenant, t.archived, t.updatedAt, t.id),
    index("sessions_parent").on(t.parentId),
    index("sessions_tenant_owner_updated").on(t.tenant, t.owner, t.updatedAt, t.id),
  ],
);

export type SessionRow = typeof sessions.$inferSelect;
export type NewSessionRow = typeof sessions.$inferInsert;
