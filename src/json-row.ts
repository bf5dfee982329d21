/**
 * One JSON document in a one-row table of a Durable Object's SQLite, read at
 * most once per instance and then served from memory: what a connection or a
 * sub-agent's task keeps so that it survives hibernation and restarts.
 */
export class JsonRow<T> {
  #cached: T | null | undefined;
  readonly #select: string;
  readonly #upsert: string;
  readonly #delete: string;

  /** @param table and `column` are this module's callers' constants, never input. */
  constructor(
    private readonly sql: SqlStorage,
    table: string,
    column: string,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY CHECK (id = 1), ${column} TEXT NOT NULL)`);
    this.#select = `SELECT ${column} AS value FROM ${table} WHERE id = 1`;
    this.#upsert = `INSERT OR REPLACE INTO ${table} (id, ${column}) VALUES (1, ?)`;
    this.#delete = `DELETE FROM ${table}`;
  }

  get(): T | null {
    if (this.#cached === undefined) {
      const row = this.sql.exec<{ value: string }>(this.#select).toArray()[0];
      this.#cached = row ? (JSON.parse(row.value) as T) : null;
    }
    return this.#cached;
  }

  save(value: T): void {
    this.sql.exec(this.#upsert, JSON.stringify(value));
    this.#cached = value;
  }

  clear(): void {
    this.sql.exec(this.#delete);
    this.#cached = null;
  }
}
