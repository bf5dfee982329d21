/**
 * Usage per tenant per UTC day, flushed from the tenant object (absolute
 * totals, so a repeated flush is harmless). Never written per token.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A day's counters, as both usage tables (the tenant's and its users') keep them. */
export function usageCounts() {
  return {
    turns: integer("turns").notNull().default(0),
    modelCalls: integer("model_calls").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    toolCalls: integer("tool_calls").notNull().default(0),
    subagents: integer("subagents").notNull().default(0),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
  };
}

export const tenantUsage = sqliteTable(
  "tenant_usage",
  {
    tenant: text("tenant").notNull(),
    /** `YYYY-MM-DD`, UTC. */
    day: text("day").notNull(),
    ...usageCounts(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.day] })],
);

export type TenantUsageRow = typeof tenantUsage.$inferSelect;
