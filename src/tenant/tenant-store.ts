/**
 * The tenant object's own SQLite: live leases, the usage of recent days (with
 * a version per row so a flush knows what D1 already has), and the limit
 * overrides. Synchronous, like the storage API it wraps.
 * @module
 */
import type { Lease, LeaseKind } from "./lease-book.js";
import type { LimitOverrides } from "./limits.js";
import { zLimitOverrides } from "./limits.js";
import { emptyUsage, USAGE_FIELDS, type UsageCounts, type UsageDay } from "./usage.js";

const COLUMN: Record<keyof UsageCounts, string> = {
  turns: "turns",
  modelCalls: "model_calls",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  toolCalls: "tool_calls",
  subagents: "subagents",
};

const DDL = [
  `CREATE TABLE IF NOT EXISTS tenant_leases (id TEXT PRIMARY KEY, kind TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS tenant_days (day TEXT PRIMARY KEY, ${USAGE_FIELDS.map((f) => `${COLUMN[f]} INTEGER NOT NULL DEFAULT 0`).join(", ")},
     version INTEGER NOT NULL DEFAULT 0, flushed_version INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE IF NOT EXISTS tenant_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];

export interface PendingDay {
  day: UsageDay;
  version: number;
}

export class TenantStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    for (const statement of DDL) sql.exec(statement);
  }

  /** Live leases; expired ones are deleted on the way. */
  leases(now: number): Lease[] {
    this.#sql.exec("DELETE FROM tenant_leases WHERE expires_at <= ?", now);
    return this.#sql
      .exec<{ id: string; kind: LeaseKind; holder: string; expires_at: number }>("SELECT id, kind, holder, expires_at FROM tenant_leases")
      .toArray()
      .map((r) => ({ id: r.id, kind: r.kind, holder: r.holder, expiresAt: r.expires_at }));
  }

  putLease(lease: Lease): void {
    this.#sql.exec(
      "INSERT INTO tenant_leases (id, kind, holder, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at",
      lease.id,
      lease.kind,
      lease.holder,
      lease.expiresAt,
    );
  }

  /** Extends a live lease; null when it is unknown or already expired. */
  extendLease(id: string, expiresAt: number, now: number): Lease | null {
    const rows = this.#sql
      .exec<{ id: string; kind: LeaseKind; holder: string; expires_at: number }>(
        "UPDATE tenant_leases SET expires_at = max(expires_at, ?) WHERE id = ? AND expires_at > ? RETURNING id, kind, holder, expires_at",
        expiresAt,
        id,
        now,
      )
      .toArray();
    const r = rows[0];
    return r ? { id: r.id, kind: r.kind, holder: r.holder, expiresAt: r.expires_at } : null;
  }

  deleteLease(id: string): void {
    this.#sql.exec("DELETE FROM tenant_leases WHERE id = ?", id);
  }

  day(date: string): UsageCounts {
    const row = this.#sql.exec<Record<string, number>>(`SELECT ${USAGE_FIELDS.map((f) => COLUMN[f]).join(", ")} FROM tenant_days WHERE day = ?`, date).toArray()[0];
    if (!row) return emptyUsage();
    const counts = emptyUsage();
    for (const f of USAGE_FIELDS) counts[f] = row[COLUMN[f]] ?? 0;
    return counts;
  }

  addToDay(date: string, delta: Partial<UsageCounts>): void {
    const columns = USAGE_FIELDS.map((f) => COLUMN[f]);
    const values = USAGE_FIELDS.map((f) => delta[f] ?? 0);
    this.#sql.exec(
      `INSERT INTO tenant_days (day, ${columns.join(", ")}, version) VALUES (?, ${columns.map(() => "?").join(", ")}, 1)
       ON CONFLICT (day) DO UPDATE SET ${columns.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}, version = version + 1`,
      date,
      ...values,
    );
  }

  /** Days whose latest totals are not in D1 yet. */
  pendingDays(): PendingDay[] {
    return this.#sql
      .exec<Record<string, string | number>>(`SELECT * FROM tenant_days WHERE version > flushed_version ORDER BY day`)
      .toArray()
      .map((row) => {
        const day = { date: String(row.day), ...emptyUsage() };
        for (const f of USAGE_FIELDS) day[f] = Number(row[COLUMN[f]] ?? 0);
        return { day, version: Number(row.version) };
      });
  }

  /** Marks what a flush wrote; a day changed meanwhile stays pending. */
  markFlushed(flushed: PendingDay[]): void {
    for (const { day, version } of flushed) {
      this.#sql.exec("UPDATE tenant_days SET flushed_version = max(flushed_version, ?) WHERE day = ?", version, day.date);
    }
  }

  /** Flushed days before `keepFrom` are only needed in D1. */
  pruneDays(keepFrom: string): void {
    this.#sql.exec("DELETE FROM tenant_days WHERE day < ? AND version = flushed_version", keepFrom);
  }

  overrides(): LimitOverrides {
    const row = this.#sql.exec<{ value: string }>("SELECT value FROM tenant_settings WHERE key = 'limits'").toArray()[0];
    if (!row) return {};
    const parsed = zLimitOverrides.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : {};
  }

  setOverrides(overrides: LimitOverrides): void {
    this.#sql.exec(
      "INSERT INTO tenant_settings (key, value) VALUES ('limits', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      JSON.stringify(overrides),
    );
  }
}
