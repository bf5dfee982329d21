/**
 * Project memory in D1, one row per tenant and cwd. Edits are read, changed and
 * written back against the version they read, so two sessions editing the same
 * project at once never lose each other's entries: the loser reads again.
 */
import { and, eq } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { projectMemory } from "../../schema/project-memory.js";

/** How many times an edit re-reads after losing a race before it gives up. */
const MAX_ATTEMPTS = 10;
/** Losers wait a random 0–N ms (N growing per attempt) so they do not collide again in lockstep. */
const BACKOFF_MS = 10;

export interface StoredMemory {
  entries: string[];
  /** 0 for a project with no row yet. */
  version: number;
}

/** The rows of a `read`, as `get` returns them. */
export function storedMemory(rows: StoredMemory[]): StoredMemory {
  return rows[0] ?? { entries: [], version: 0 };
}

/** A query for `SessionIndex.insert` to send in its batch. */
export type MemoryRead = ReturnType<MemoryStore["read"]>;

export class MemoryConflictError extends Error {
  constructor() {
    super("the project memory kept changing while this edit was being saved; try again");
    this.name = "MemoryConflictError";
  }
}

export class MemoryStore {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  async get(tenant: string, cwd: string): Promise<StoredMemory> {
    return storedMemory(await this.read(tenant, cwd));
  }

  /** `get` as a query not yet run, for a caller that sends it in a batch of its own (`storedMemory` reads its rows). */
  read(tenant: string, cwd: string) {
    return this.#db
      .select({ entries: projectMemory.entries, version: projectMemory.version })
      .from(projectMemory)
      .where(and(eq(projectMemory.tenant, tenant), eq(projectMemory.cwd, cwd)))
      .limit(1);
  }

  /**
   * Applies `change` to the current entries and stores the result; `change` may
   * throw to refuse (its error propagates) and runs again if another write won.
   */
  async edit(tenant: string, cwd: string, change: (entries: string[]) => string[]): Promise<string[]> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.get(tenant, cwd);
      const next = change(current.entries);
      if (await this.#write(tenant, cwd, current.version, next)) return next;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * (attempt + 1)));
    }
    throw new MemoryConflictError();
  }

  /** `PUT /v1/memory`: the entries replace whatever is there. */
  async replace(tenant: string, cwd: string, entries: string[]): Promise<string[]> {
    return this.edit(tenant, cwd, () => entries);
  }

  /** Writes `entries` if the row is still at `version`; false when another write got there first. */
  async #write(tenant: string, cwd: string, version: number, entries: string[]): Promise<boolean> {
    const updatedAt = Date.now();
    if (version === 0) {
      const inserted = await this.#db
        .insert(projectMemory)
        .values({ tenant, cwd, entries, version: 1, updatedAt })
        .onConflictDoNothing()
        .returning({ version: projectMemory.version });
      return inserted.length === 1;
    }
    const updated = await this.#db
      .update(projectMemory)
      .set({ entries, version: version + 1, updatedAt })
      .where(and(eq(projectMemory.tenant, tenant), eq(projectMemory.cwd, cwd), eq(projectMemory.version, version)))
      .returning({ version: projectMemory.version });
    return updated.length === 1;
  }
}
