/**
 * The managed keys in D1 through drizzle. Keys are looked up by the SHA-256 of
 * what the client presented; the clear key exists only in `create`'s answer.
 * @module
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { apiKeys, type ApiKeyRow } from "../../schema/api-keys.js";
import { generateApiKey, generateKeyId, sha256Hex } from "../keys/api-key.js";

/** `last_used_at` is written at most this often per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Listings stop here; a team has far fewer keys. */
export const MAX_KEYS_LISTED = 1_000;

export type KeyStatus = "active" | "revoked" | "expired";

export function keyStatus(row: Pick<ApiKeyRow, "revokedAt" | "expiresAt">, now: number): KeyStatus {
  if (row.revokedAt !== null) return "revoked";
  if (row.expiresAt !== null && row.expiresAt <= now) return "expired";
  return "active";
}

export class ApiKeyStore {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /** Makes a key; the returned `key` is the only copy of the secret. */
  async create(input: { tenant: string; user: string | null; label: string; expiresAt: number | null }, now: number): Promise<{ row: ApiKeyRow; key: string }> {
    const key = generateApiKey();
    const row: ApiKeyRow = {
      id: generateKeyId(),
      tenant: input.tenant,
      user: input.user,
      label: input.label,
      sha256: await sha256Hex(key),
      createdAt: now,
      lastUsedAt: null,
      expiresAt: input.expiresAt,
      revokedAt: null,
    };
    await this.#db.insert(apiKeys).values(row);
    return { row, key };
  }

  async findByKey(key: string): Promise<ApiKeyRow | undefined> {
    const rows = await this.#db.select().from(apiKeys).where(eq(apiKeys.sha256, await sha256Hex(key))).limit(1);
    return rows[0];
  }

  async get(id: string): Promise<ApiKeyRow | undefined> {
    const rows = await this.#db.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
    return rows[0];
  }

  /** Newest first, optionally one tenant's; `truncated` when more than `MAX_KEYS_LISTED` exist. */
  async list(tenant: string | undefined): Promise<{ rows: ApiKeyRow[]; truncated: boolean }> {
    const rows = await this.#db
      .select()
      .from(apiKeys)
      .where(tenant === undefined ? undefined : eq(apiKeys.tenant, tenant))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(MAX_KEYS_LISTED + 1);
    return { rows: rows.slice(0, MAX_KEYS_LISTED), truncated: rows.length > MAX_KEYS_LISTED };
  }

  /** Revokes once: a second revoke keeps the first time. Undefined for an unknown id. */
  async revoke(id: string, now: number): Promise<ApiKeyRow | undefined> {
    const rows = await this.#db
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})` })
      .where(eq(apiKeys.id, id))
      .returning();
    return rows[0];
  }

  /**
   * Records a use, at most once per `LAST_USED_RESOLUTION_MS`: the condition is
   * in the statement, so concurrent requests cannot write it twice a minute.
   */
  async touch(row: ApiKeyRow, now: number): Promise<boolean> {
    if (row.lastUsedAt !== null && now - row.lastUsedAt < LAST_USED_RESOLUTION_MS) return false;
    const cutoff = now - LAST_USED_RESOLUTION_MS;
    const result = await this.#db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, cutoff))));
    return result.meta.changes > 0;
  }

  /** Whether the key may still be used (false for revoked, expired or deleted). */
  async isActive(id: string, now: number): Promise<boolean> {
    const row = await this.get(id);
    return row !== undefined && keyStatus(row, now) === "active";
  }
}
