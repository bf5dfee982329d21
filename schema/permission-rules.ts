/**
 * "Always allow" answers, remembered per tenant and workspace (cwd): `edit` for
 * edits, `execute:<program>` for commands run with that program.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const permissionRules = sqliteTable(
  "permission_rules",
  {
    tenant: text("tenant").notNull(),
    cwd: text("cwd").notNull(),
    rule: text("rule").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant, t.cwd, t.rule] })],
);
