/**
 * Usage counters per UTC day and the date arithmetic around them. Pure.
 * @module
 */
import * as z from "zod";

export const USAGE_FIELDS = ["turns", "modelCalls", "inputTokens", "outputTokens", "toolCalls", "subagents"] as const;
export type UsageField = (typeof USAGE_FIELDS)[number];
export type UsageCounts = Record<UsageField, number>;
export interface UsageDay extends UsageCounts {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
}

const zCount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** What one turn or sub-agent adds; absent fields add nothing. */
export const zUsageDelta = z.strictObject({
  turns: zCount.optional(),
  modelCalls: zCount.optional(),
  inputTokens: zCount.optional(),
  outputTokens: zCount.optional(),
  toolCalls: zCount.optional(),
  subagents: zCount.optional(),
});
export type UsageDelta = z.infer<typeof zUsageDelta>;

/**
 * Usage a session sends under an id. A send whose reply was lost is repeated
 * with the same id, and the tenant object counts each id once.
 */
export interface UsageBatch {
  id: string;
  /** When it was made (ms); the tenant object remembers ids for a while only. */
  at: number;
  delta: UsageDelta;
  /** The session owner's user, so usage can be grouped by user; absent for an admin key's sessions. */
  user?: string | null;
}

export function usageBatch(delta: UsageDelta, at = Date.now(), user?: string | null): UsageBatch {
  return { id: crypto.randomUUID(), at, delta, ...(user ? { user } : {}) };
}

export const DAY_MS = 86_400_000;
/** The widest range one usage request may ask for. */
export const MAX_RANGE_DAYS = 366;
/** Without `from`, a usage request covers this many days up to `to`. */
export const DEFAULT_RANGE_DAYS = 30;

export function emptyUsage(): UsageCounts {
  return { turns: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0, subagents: 0 };
}

/**
 * Adds `delta` to `a`. A field that is not a count (a model server that left
 * `completion_tokens` out gives `NaN`) adds nothing: one such value must not
 * poison the totals, nor make the tenant object refuse the batch for good.
 */
export function addUsage(a: UsageCounts, delta: UsageDelta): UsageCounts {
  const sum = { ...a };
  for (const field of USAGE_FIELDS) {
    const value = delta[field];
    if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) sum[field] += value;
  }
  return sum;
}

export function totalOf(days: UsageCounts[]): UsageCounts {
  return days.reduce<UsageCounts>((total, day) => addUsage(total, day), emptyUsage());
}

export function tokensOf(usage: UsageCounts): number {
  return usage.inputTokens + usage.outputTokens;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function secondsUntilNextUtcDay(ms: number): number {
  return Math.max(1, Math.ceil((DAY_MS - (ms % DAY_MS)) / 1000));
}

/** A real calendar date in `YYYY-MM-DD` form (2026-02-30 is refused). */
export const zDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date as YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && utcDay(Date.parse(`${s}T00:00:00Z`)) === s, "not a calendar date");

/** `from`/`to` of a usage query; both optional, `from <= to`, at most `MAX_RANGE_DAYS` days. */
export function zDayRange(now: () => number) {
  return z
    .object({ from: zDay.optional(), to: zDay.optional() })
    .transform(({ from, to }) => {
      const end = to ?? utcDay(now());
      const start = from ?? utcDay(Date.parse(`${end}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
      return { from: start, to: end };
    })
    .refine(({ from, to }) => from <= to, { message: "from must not be after to", path: ["from"] })
    .refine(({ from, to }) => (Date.parse(to) - Date.parse(from)) / DAY_MS < MAX_RANGE_DAYS, {
      message: `at most ${MAX_RANGE_DAYS} days per request`,
      path: ["from"],
    });
}
