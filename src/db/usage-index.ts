/**
 * Tenant usage per UTC day in D1. The tenant object writes absolute day
 * totals (an upsert, so a retried flush is harmless); REST reads ranges.
 * @module
 */
import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { tenantUsage } from "../../schema/tenant-usage.js";
import { userUsage } from "../../schema/user-usage.js";

/** A flush writes absolute totals: the newer row wins whole. */
const absolute = {
  turns: sql`excluded.turns`,
  modelCalls: sql`excluded.model_calls`,
  inputTokens: sql`excluded.input_tokens`,
  outputTokens: sql`excluded.output_tokens`,
  toolCalls: sql`excluded.tool_calls`,
  subagents: sql`excluded.subagents`,
  updatedAt: sql`excluded.updated_at`,
};
import type { UsageDay } from "../tenant/usage.js";

export class UsageIndex {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /** One D1 round trip for any number of days, the tenant's and its users' (`db.batch`: atomic, never `transaction()`). */
  async write(tenant: string, days: UsageDay[], now: number, userDays: { user: string; day: UsageDay }[] = []): Promise<void> {
    const perUser = userDays.map(({ user, day }) => {
      const { date, ...counts } = day;
      return this.#db
        .insert(userUsage)
        .values({ tenant, user, day: date, ...counts, updatedAt: now })
        .onConflictDoUpdate({ target: [userUsage.tenant, userUsage.day, userUsage.user], set: absolute });
    });
    const [first, ...rest] = [...perUser, ...days.map((day) => {
      const { date, ...counts } = day;
      return this.#db
        .insert(tenantUsage)
        .values({ tenant, day: date, ...counts, updatedAt: now })
        .onConflictDoUpdate({
          target: [tenantUsage.tenant, tenantUsage.day],
          set: absolute,
        });
    })];
    if (first) await this.#db.batch([first, ...rest]);
  }

  /** Per user, the days of `[from, to]` that have usage, oldest first. */
  async readByUser(tenant: string, from: string, to: string): Promise<{ user: string; days: UsageDay[] }[]> {
    const rows = await this.#db
      .select()
      .from(userUsage)
      .where(and(eq(userUsage.tenant, tenant), gte(userUsage.day, from), lte(userUsage.day, to)))
      .orderBy(asc(userUsage.user), asc(userUsage.day));
    const byUser = new Map<string, UsageDay[]>();
    for (const { user, day, turns, modelCalls, inputTokens, outputTokens, toolCalls, subagents } of rows) {
      const days = byUser.get(user) ?? byUser.set(user, []).get(user)!;
      days.push({ date: day, turns, modelCalls, inputTokens, outputTokens, toolCalls, subagents });
    }
    return [...byUser].map(([user, days]) => ({ user, days }));
  }

  /** The days of `[from, to]` (inclusive) that have usage, oldest first. */
  async read(tenant: string, from: string, to: string): Promise<UsageDay[]> {
    const rows = await this.#db
      .select()
      .from(tenantUsage)
      .where(and(eq(tenantUsage.tenant, tenant), gte(tenantUsage.day, from), lte(tenantUsage.day, to)))
      .orderBy(asc(tenantUsage.day));
    return rows.map(({ day, turns, modelCalls, inputTokens, outputTokens, toolCalls, subagents }) => ({
      date: day,
      turns,
      modelCalls,
      inputTokens,
      outputTokens,
      toolCalls,
      subagents,
    }));
  }
}
