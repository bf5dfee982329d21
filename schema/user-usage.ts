/**
 * Usage per user of a tenant per UTC day (the owner of the session that spent
 * it), flushed from the tenant object beside `tenant_usage` as absolute totals.
 * Sessions made with an admin key (no user) count only in `tenant_usage`.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const userUsage = sqliteTable(
  "user_usage",
  {
    tenant: text("tenant").notNull(),
    user: text("user").notNull(),
    /** `YYYY-MM-DD`, UTC. */
    day: text("day").notNull(),
    turns: integer("turns").notNull().default(0),
    modelCalls: integer("model_calls").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    toolCalls: integer("tool_calls").notNull().default(0),
    subagents: integer("subagents").notNull().default(0),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.day, t.user] })],
);

export type UserUsageRow = typeof userUsage.$inferSelect;
