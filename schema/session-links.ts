/**
 * Viewer links: whoever holds one may watch a session, read-only, without a
 * key. The secret is only in the link's URL fragment; this keeps its SHA-256.
 * Revoked rows stay, so a revoked link says "revoked" rather than "unknown".
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const sessionLinks = sqliteTable(
  "session_links",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id").notNull(),
    tenant: text("tenant").notNull(),
    role: text("role", { enum: ["viewer"] }).notNull(),
    /** Hex SHA-256 of the whole token. */
    sha256: text("sha256").notNull(),
    /** The user who made it (null: an admin key). */
    createdBy: text("created_by"),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [uniqueIndex("session_links_sha256").on(t.sha256), index("session_links_session").on(t.sessionId, t.createdAt)],
);

export type SessionLinkRow = typeof sessionLinks.$inferSelect;
