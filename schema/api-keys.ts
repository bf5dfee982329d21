/**
 * Managed API keys. A key is shown once when it is created; only its SHA-256
 * is stored. Revoking sets `revoked_at`; rows are kept so a revoked key keeps
 * answering "revoked" instead of "unknown".
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenant: text("tenant").notNull(),
    /** The tenant's user the key belongs to; null: the tenant's admin (sees every session). */
    user: text("user"),
    label: text("label").notNull(),
    /** Hex SHA-256 of the whole key (`he_…`). */
    sha256: text("sha256").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    lastUsedAt: integer("last_used_at", { mode: "number" }),
    expiresAt: integer("expires_at", { mode: "number" }),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [uniqueIndex("api_keys_sha256").on(t.sha256), index("api_keys_tenant_created").on(t.tenant, t.createdAt)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
