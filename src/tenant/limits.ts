/**
 * Tenant limits. Defaults come from `HERMES_TENANT_LIMITS` (JSON, a missing
 * key means no limit); an admin can override each one per tenant, or lift it
 * with `null`. Pure: parsing and merging only.
 * @module
 */
import * as z from "zod";

export const LIMIT_NAMES = ["maxConcurrentTurns", "maxConcurrentSubagents", "dailyTokens"] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Effective limits; an absent name is unlimited. */
export type TenantLimits = Partial<Record<LimitName, number>>;
/** Per-tenant overrides: a number sets the limit, `null` lifts it, an absent name keeps the default. */
export type LimitOverrides = Partial<Record<LimitName, number | null>>;

const zLimit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const zTenantLimits = z.strictObject({
  maxConcurrentTurns: zLimit.optional(),
  maxConcurrentSubagents: zLimit.optional(),
  dailyTokens: zLimit.optional(),
}) satisfies z.ZodType<TenantLimits>;

export const zLimitOverrides = z.strictObject({
  maxConcurrentTurns: zLimit.nullable().optional(),
  maxConcurrentSubagents: zLimit.nullable().optional(),
  dailyTokens: zLimit.nullable().optional(),
}) satisfies z.ZodType<LimitOverrides>;

/** `HERMES_TENANT_LIMITS` is not usable; refusing beats running without the limits the operator meant to set. */
export class TenantLimitsConfigError extends Error {
  override readonly name = "TenantLimitsConfigError";
}

export function parseDefaultLimits(raw: string | undefined): TenantLimits {
  const text = raw?.trim();
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TenantLimitsConfigError("HERMES_TENANT_LIMITS is not valid JSON");
  }
  const parsed = zTenantLimits.safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new TenantLimitsConfigError(`HERMES_TENANT_LIMITS is invalid: ${detail}`);
  }
  return parsed.data;
}

export function effectiveLimits(defaults: TenantLimits, overrides: LimitOverrides): TenantLimits {
  const limits: TenantLimits = {};
  for (const name of LIMIT_NAMES) {
    const value = name in overrides ? overrides[name] : defaults[name];
    if (typeof value === "number") limits[name] = value;
  }
  return limits;
}

/**
 * The most sub-agents a tenant's sessions can run at once under their own
 * settings: `turns` root sessions working (one turn slot each), each running
 * `childrenPerSession` sub-agents, and orchestrators below them doing the same
 * down to `spawnDepth` levels. A `maxConcurrentSubagents` at or above this
 * never holds a session below its `HERMES_MAX_CONCURRENT_CHILDREN`; the
 * shipped default is chosen so (a test checks `wrangler.toml`).
 */
export function subagentDemand(turns: number, childrenPerSession: number, spawnDepth: number): number {
  let demand = 0;
  for (let level = 1, width = childrenPerSession; level <= spawnDepth; level++, width *= childrenPerSession) demand += turns * width;
  return demand;
}
