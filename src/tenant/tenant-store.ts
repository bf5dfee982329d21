/**
 * The tenant object's state: live leases in memory; in its SQLite, the usage
 * of recent days (with a version per row so a flush knows what D1 already
 * has) and the limit overrides. Synchronous, like the storage API it wraps.
 *
 * Leases are not written to storage. A write would hold the object's reply
 * until storage confirms it (the output gate), and a lease is granted on the
 * path of every prompt. They are soft anyway: each expires unless renewed, and
 * a holder whose renewal finds its lease gone takes a new one, so a restarted
 * tenant object is back to the true count within one heartbeat.
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

const COLUMNS = USAGE_FIELDS.map((f) => COLUMN[f]);
const ADD = `${COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}, version = version + 1`;
const SELECT_DAY = `SELECT ${COLUMNS.join(", ")} FROM tenant_days WHERE day = ?`;
const ADD_TO_DAY = `INSERT INTO tenant_days (day, ${COLUMNS.join(", ")}, version) VALUES (?, ${COLUMNS.map(() => "?").join(", ")}, 1)
  ON CONFLICT (day) DO UPDATE SET ${ADD}`;
const ADD_TO_USER_DAY = `INSERT INTO user_days (day, user, ${COLUMNS.join(", ")}, version) VALUES (?, ?, ${COLUMNS.map(() => "?").join(", ")}, 1)
  ON CONFLICT (day, user) DO UPDATE SET ${ADD}`;

const DDL = [
  `CREATE TABLE IF NOT EXISTS tenant_days (day TEXT PRIMARY KEY, ${USAGE_FIELDS.map((f) => `${COLUMN[f]} INTEGER NOT NULL DEFAULT 0`).join(", ")},
     version INTEGER NOT NULL DEFAULT 0, flushed_version INTEGER NOT NULL DEFAULT 0)`,
  // The same days per user (the session owner's), for usage grouped by user.
  `CREATE TABLE IF NOT EXISTS user_days (day TEXT NOT NULL, user TEXT NOT NULL, ${USAGE_FIELDS.map((f) => `${COLUMN[f]} INTEGER NOT NULL DEFAULT 0`).join(", ")},
     version INTEGER NOT NULL DEFAULT 0, flushed_version INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (day, user))`,
  `CREATE TABLE IF NOT EXISTS tenant_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS usage_batches (id TEXT PRIMARY KEY, at INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS usage_batches_at ON usage_batches (at)`,
];

export interface PendingDay {
  day: UsageDay;
  version: number;
  /** Set on a user's day (`user_days`). */
  user?: string;
}

export class TenantStore {
  readonly #sql: SqlStorage;
  readonly #leases = new Map<string, Lease>();
  /** The overrides as stored; read on every lease decision, so kept parsed. */
  #overrides: LimitOverrides | undefined;
  /** One day's totals as stored (the day every lease decision reads), kept in step by `addToDay`. */
  #day: { date: string; counts: UsageCounts } | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    for (const statement of DDL) sql.exec(statement);
  }

  /** Live leases; expired ones are dropped on the way. */
  leases(now: number): Lease[] {
    for (const [id, lease] of this.#leases) if (lease.expiresAt <= now) this.#leases.delete(id);
    return [...this.#leases.values()];
  }

  putLease(lease: Lease): void {
    this.#leases.set(lease.id, { ...lease });
  }

  /** Extends a live lease; null when it is unknown or already expired. */
  extendLease(id: string, expiresAt: number, now: number): Lease | null {
    const lease = this.#leases.get(id);
    if (!lease || lease.expiresAt <= now) return null;
    lease.expiresAt = Math.max(lease.expiresAt, expiresAt);
    return { ...lease };
  }

  deleteLease(id: string): void {
    this.#leases.delete(id);
  }

  /** The tenant's totals of `date`; read from storage once per date, then from memory. */
  day(date: string): UsageCounts {
    if (this.#day?.date !== date) {
      const row = this.#sql.exec<Record<string, number>>(SELECT_DAY, date).toArray()[0];
      const counts = emptyUsage();
      if (row) for (const f of USAGE_FIELDS) counts[f] = row[COLUMN[f]] ?? 0;
      this.#day = { date, counts };
    }
    return { ...this.#day.counts };
  }

  /** Adds to the tenant's day and, for a user's session, to that user's day too. */
  addToDay(date: string, delta: Partial<UsageCounts>, user?: string | null): void {
    const values = USAGE_FIELDS.map((f) => delta[f] ?? 0);
    this.#sql.exec(ADD_TO_DAY, date, ...values);
    if (this.#day?.date === date) USAGE_FIELDS.forEach((f, i) => (this.#day!.counts[f] += values[i]!));
    if (user) this.#sql.exec(ADD_TO_USER_DAY, date, user, ...values);
  }

  /** Users' days whose latest totals are not in D1 yet. */
  pendingUserDays(): PendingDay[] {
    return this.#sql
      .exec<Record<string, string | number>>(`SELECT * FROM user_days WHERE version > flushed_version ORDER BY day, user`)
      .toArray()
      .map((row) => {
        const day = { date: String(row.day), ...emptyUsage() };
        for (const f of USAGE_FIELDS) day[f] = Number(row[COLUMN[f]] ?? 0);
        return { day, version: Number(row.version), user: String(row.user) };
      });
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
    for (const { day, version, user } of flushed) {
      if (user !== undefined) this.#sql.exec("UPDATE user_days SET flushed_version = max(flushed_version, ?) WHERE day = ? AND user = ?", version, day.date, user);
      else this.#sql.exec("UPDATE tenant_days SET flushed_version = max(flushed_version, ?) WHERE day = ?", version, day.date);
    }
  }

  /**
   * Remembers a usage batch's id; false when it was remembered already (the
   * batch is sent again when the reply to its first send was lost). One
   * statement for the check and the write.
   */
  rememberBatch(id: string, now: number): boolean {
    return this.#sql.exec("INSERT INTO usage_batches (id, at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id", id, now).toArray().length > 0;
  }

  pruneBatches(before: number): void {
    this.#sql.exec("DELETE FROM usage_batches WHERE at < ?", before);
  }

  /** Flushed days before `keepFrom` are only needed in D1. */
  pruneDays(keepFrom: string): void {
    if (this.#day && this.#day.date < keepFrom) this.#day = null;
    this.#sql.exec("DELETE FROM tenant_days WHERE day < ? AND version = flushed_version", keepFrom);
    this.#sql.exec("DELETE FROM user_days WHERE day < ? AND version = flushed_version", keepFrom);
  }

  /**
   * The tenant this object is for. `ctx.id.name` is missing when the runtime
   * starts the object for its alarm, so the name is kept from the first call
   * that had it.
   */
  tenantName(fromId: string | undefined): string | undefined {
    const stored = this.#sql.exec<{ value: string }>("SELECT value FROM tenant_settings WHERE key = 'tenant'").toArray()[0]?.value;
    if (fromId && stored !== fromId) {
      this.#sql.exec("INSERT INTO tenant_settings (key, value) VALUES ('tenant', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", fromId);
    }
    return fromId ?? stored;
  }

  overrides(): LimitOverrides {
    if (this.#overrides === undefined) {
      const row = this.#sql.exec<{ value: string }>("SELECT value FROM tenant_settings WHERE key = 'limits'").toArray()[0];
      const parsed = row ? zLimitOverrides.safeParse(JSON.parse(row.value)) : undefined;
      this.#overrides = parsed?.success ? parsed.data : {};
    }
    return this.#overrides;
  }

  setOverrides(overrides: LimitOverrides): void {
    this.#sql.exec(
      "INSERT INTO tenant_settings (key, value) VALUES ('limits', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      JSON.stringify(overrides),
    );
    this.#overrides = overrides;
  }
}
