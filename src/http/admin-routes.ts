/**
 * The admin API under `/v1/admin`, behind `HERMES_ADMIN_TOKEN`: managed keys,
 * per-tenant limit overrides, any tenant's usage. Bad bodies and queries are
 * 400 with the zod issues; unknown ids are 404.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import type { ApiKeyRow } from "../../schema/api-keys.js";
import { ApiKeyStore, keyStatus } from "../db/api-keys.js";
import type { Env } from "../env.js";
import { parseDefaultLimits, TenantLimitsConfigError, zLimitOverrides } from "../tenant/limits.js";
import { adminAuth } from "./admin-auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import { usageByUser, usageReport, zGroupBy, zUsageQuery } from "./usage-routes.js";
import { jsonBody, queryOf } from "./validate.js";
import { zTenant } from "../tenant/tenant-name.js";
import { zUserName } from "@hermes-edge/protocol";

const zCreateKey = z.strictObject({
  tenant: zTenant,
  /** The key's user; without one the key is the tenant's admin (sees every session). */
  user: zUserName.optional(),
  label: z.string().trim().min(1).max(200),
  expiresAt: z.iso
    .datetime({ offset: true })
    .refine((s) => Date.parse(s) > Date.now(), "must be in the future")
    .optional(),
});

const zKeyId = z.string().regex(/^key_[A-Za-z0-9_-]{16}$/);

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A key as listings show it: everything but the secret (and its hash). */
export function keyView(row: ApiKeyRow, now: number) {
  return {
    id: row.id,
    tenant: row.tenant,
    user: row.user,
    label: row.label,
    status: keyStatus(row, now),
    createdAt: iso(row.createdAt),
    lastUsedAt: iso(row.lastUsedAt),
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
  };
}

function tenantParam(raw: string): string {
  const parsed = zTenant.safeParse(raw);
  if (!parsed.success) throw httpError(ErrorCode.invalidParams, "invalid tenant", parsed.error.issues);
  return parsed.data;
}

/**
 * An unusable `HERMES_TENANT_LIMITS` refuses every turn; the admin, who can fix
 * it, is told why (a 500 that says so) instead of getting an opaque one.
 */
function usableDefaults(env: Env): void {
  try {
    parseDefaultLimits(env.HERMES_TENANT_LIMITS);
  } catch (err) {
    if (!(err instanceof TenantLimitsConfigError)) throw err;
    throw httpError(ErrorCode.internalError, err.message, { variable: "HERMES_TENANT_LIMITS" }, { status: 500, expose: true });
  }
}

export const adminRoutes = new Hono<{ Bindings: Env }>()
  .use(adminAuth())
  .post("/keys", async (c) => {
    const body = await jsonBody(c, zCreateKey);
    const expiresAt = body.expiresAt === undefined ? null : Date.parse(body.expiresAt);
    const { row, key } = await new ApiKeyStore(c.env.DB).create({ tenant: body.tenant, user: body.user ?? null, label: body.label, expiresAt }, Date.now());
    return c.json({ id: row.id, key, tenant: row.tenant, user: row.user, label: row.label, expiresAt: iso(row.expiresAt) }, 201);
  })
  .get("/keys", async (c) => {
    const { tenant } = queryOf(c, z.object({ tenant: zTenant.optional() }));
    const now = Date.now();
    const { rows, truncated } = await new ApiKeyStore(c.env.DB).list(tenant);
    return c.json({ keys: rows.map((row) => keyView(row, now)), truncated });
  })
  .delete("/keys/:id", async (c) => {
    const id = c.req.param("id");
    const now = Date.now();
    const row = zKeyId.safeParse(id).success ? await new ApiKeyStore(c.env.DB).revoke(id, now) : undefined;
    if (!row) throw httpError(ErrorCode.resourceNotFound, "no such key");
    return c.json(keyView(row, now));
  })
  .get("/tenants/:tenant/limits", async (c) => {
    const tenant = tenantParam(c.req.param("tenant"));
    usableDefaults(c.env);
    return c.json(await c.env.TENANT.get(c.env.TENANT.idFromName(tenant)).limits());
  })
  .put("/tenants/:tenant/limits", async (c) => {
    const tenant = tenantParam(c.req.param("tenant"));
    const overrides = await jsonBody(c, zLimitOverrides);
    // Before the write: with unusable defaults the overrides would be stored and the answer a 500.
    usableDefaults(c.env);
    return c.json(await c.env.TENANT.get(c.env.TENANT.idFromName(tenant)).setLimits(overrides));
  })
  .get("/usage", async (c) => {
    const { tenant } = queryOf(c, z.object({ tenant: zTenant }));
    const { groupBy } = queryOf(c, zGroupBy);
    const report = await usageReport(c.env, tenant, queryOf(c, zUsageQuery));
    return c.json(groupBy === "user" ? { ...report, users: await usageByUser(c.env, tenant, report) } : report);
  })
  .all("*", (c) => {
    throw httpError(ErrorCode.resourceNotFound, `no route for ${c.req.method} ${c.req.path}`);
  });
