/** Reads and writes of remembered "always allow" rules in D1. */
import { and, eq } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { permissionRules } from "../../schema/permission-rules.js";

export class PermissionRuleStore {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  async has(tenant: string, cwd: string, rule: string): Promise<boolean> {
    const rows = await this.#db
      .select({ rule: permissionRules.rule })
      .from(permissionRules)
      .where(and(eq(permissionRules.tenant, tenant), eq(permissionRules.cwd, cwd), eq(permissionRules.rule, rule)))
      .limit(1);
    return rows.length > 0;
  }

  async add(tenant: string, cwd: string, rule: string): Promise<void> {
    await this.#db.insert(permissionRules).values({ tenant, cwd, rule, createdAt: Date.now() }).onConflictDoNothing();
  }
}
