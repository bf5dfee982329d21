/**
 * Who else may open a session, and with which role. One row per (session,
 * user); the user `*` is everyone in the tenant. Kept on a session's access
 * root, so its sub-agents follow it.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const sessionShares = sqliteTable(
  "session_shares",
  {
    sessionId: text("session_id").notNull(),
    tenant: text("tenant").notNull(),
    user: text("user").notNull(),
    role: text("role", { enum: ["viewer", "driver"] }).notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.user] }), index("session_shares_tenant_user").on(t.tenant, t.user)],
);

export type SessionShareRow = typeof sessionShares.$inferSelect;
