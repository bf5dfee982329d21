/**
 * Which tenant a presented credential belongs to. Two kinds are accepted: a
 * managed key (`he_…`, looked up in D1 by its SHA-256) and a bootstrap token
 * from `HERMES_EDGE_TOKENS` (compared in constant time against every entry).
 * @module
 */
import { tokenTable } from "../config.js";
import { ApiKeyStore, keyStatus } from "../db/api-keys.js";
import { looksLikeApiKey, secretsEqual } from "../keys/api-key.js";

export type FailureReason = "missing" | "unknown" | "revoked" | "expired";

export type CredentialCheck =
  | { ok: true; tenant: string; keyId: string | undefined }
  | { ok: false; reason: FailureReason; message: string };

export interface CredentialContext {
  db: D1Database;
  bootstrapTokens: string | undefined;
  now: number;
  /** Runs the `last_used_at` write after the response (the request never waits for it). */
  waitUntil: (promise: Promise<unknown>) => void;
}

export async function checkCredential(token: string | undefined, ctx: CredentialContext): Promise<CredentialCheck> {
  if (!token) return { ok: false, reason: "missing", message: "missing credentials: send Authorization: Bearer <key>" };
  const tenant = await bootstrapTenant(token, ctx.bootstrapTokens);
  if (tenant !== undefined) return { ok: true, tenant, keyId: undefined };
  if (!looksLikeApiKey(token)) return { ok: false, reason: "unknown", message: "unknown token" };
  const keys = new ApiKeyStore(ctx.db);
  const row = await keys.findByKey(token);
  if (!row) return { ok: false, reason: "unknown", message: "unknown key" };
  const status = keyStatus(row, ctx.now);
  if (status === "revoked") return { ok: false, reason: "revoked", message: "key revoked" };
  if (status === "expired") return { ok: false, reason: "expired", message: "key expired" };
  ctx.waitUntil(keys.touch(row, ctx.now).catch((err) => console.error("last_used_at write failed", { keyId: row.id, err: String(err) })));
  return { ok: true, tenant: row.tenant, keyId: row.id };
}

/** Every entry is compared, matched or not, so timing says nothing about which (or whether one) matched. */
async function bootstrapTenant(token: string, raw: string | undefined): Promise<string | undefined> {
  let found: string | undefined;
  for (const [candidate, tenant] of tokenTable(raw)) {
    if ((await secretsEqual(token, candidate)) && found === undefined) found = tenant;
  }
  return found;
}
