/**
 * Usage per user of a tenant per UTC day (the owner of the session that spent
 * it), flushed from the tenant object beside `tenant_usage` as absolute totals.
 * Sessions made with an admin key (no user) count only in `tenant_usage`.
 */
import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { usageCounts } from "./tenant-usage.js";

export const userUsage = sqliteTable(
  "user_usage",
  {
    tenant: text("tenant").notNull(),
    user: text("user").notNull(),
    /** `YYYY-MM-DD`, UTC. */
    day: text("day").notNull(),
    ...usageCounts(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.day, t.user] })],
);

export type UserUsageRow = typeof userUsage.$inferSelect;
