/**
 * `GET /v1/usage?from=YYYY-MM-DD&to=YYYY-MM-DD`: the calling tenant's usage
 * per UTC day. `to` defaults to today, `from` to 29 days before `to`; only
 * days with usage are listed, `total` sums them.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import { UsageIndex } from "../db/usage-index.js";
import type { Env } from "../env.js";
import { flushUsage } from "../tenant/tenant-slots.js";
import { totalOf, zDayRange, type UsageCounts, type UsageDay } from "../tenant/usage.js";
import type { AuthVariables } from "./auth.js";
import { queryOf } from "./validate.js";

export interface UsageReport {
  tenant: string;
  from: string;
  to: string;
  days: UsageDay[];
  total: UsageCounts;
}

export const zUsageQuery = z.object({ from: z.string().optional(), to: z.string().optional() }).pipe(zDayRange(Date.now));

/** `groupBy=user`: each user's days and total beside the tenant's (sessions of admin keys count only in the tenant's). */
export const zGroupBy = z.object({ groupBy: z.literal("user").optional() });

export async function usageByUser(env: Pick<Env, "DB">, tenant: string, range: { from: string; to: string }) {
  const users = await new UsageIndex(env.DB).readByUser(tenant, range.from, range.to);
  return users.map(({ user, days }) => ({ user, days, total: totalOf(days) }));
}

export async function usageReport(env: Pick<Env, "DB" | "TENANT">, tenant: string, range: { from: string; to: string }): Promise<UsageReport> {
  // The tenant object writes usage to D1 within `FLUSH_DELAY_MS` of each turn; a read asks it to write now.
  // If it cannot be reached, D1's totals (at most that far behind) are the answer.
  await flushUsage(env, tenant).catch((err) => console.error("usage read: the tenant object did not flush", { tenant }, err));
  const days = await new UsageIndex(env.DB).read(tenant, range.from, range.to);
  return { tenant, ...range, days, total: totalOf(days) };
}

export const usageRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>().get("/usage", async (c) => {
  const range = queryOf(c, zUsageQuery);
  return c.json(await usageReport(c.env, c.get("tenant"), range));
});
