/**
 * Viewer links in D1 through drizzle: made, found by the hash of a presented
 * token, listed per session, revoked (the row stays, answering "revoked").
 * @module
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { sessionLinks, type SessionLinkRow } from "../../schema/session-links.js";
import { sha256Hex } from "../keys/api-key.js";
import { generateLink } from "../keys/link-token.js";

export type LinkStatus = "active" | "revoked" | "expired";
export const MAX_LINKS_LISTED = 200;

export function linkStatus(row: Pick<SessionLinkRow, "revokedAt" | "expiresAt">, now: number): LinkStatus {
  if (row.revokedAt !== null) return "revoked";
  if (row.expiresAt <= now) return "expired";
  return "active";
}

export class LinkStore {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /** Makes a link; the returned token is the only copy of its secret. */
  async create(input: { tenant: string; sessionId: string; createdBy: string | null; expiresAt: number }, now: number): Promise<{ row: SessionLinkRow; token: string }> {
    const { id, token } = generateLink();
    const row: SessionLinkRow = { id, ...input, role: "viewer", sha256: await sha256Hex(token), createdAt: now, revokedAt: null };
    await this.#db.insert(sessionLinks).values(row);
    return { row, token };
  }

  async findByToken(token: string): Promise<SessionLinkRow | undefined> {
    const rows = await this.#db.select().from(sessionLinks).where(eq(sessionLinks.sha256, await sha256Hex(token))).limit(1);
    return rows[0];
  }

  async get(id: string): Promise<SessionLinkRow | undefined> {
    const rows = await this.#db.select().from(sessionLinks).where(eq(sessionLinks.id, id)).limit(1);
    return rows[0];
  }

  async list(tenant: string, sessionId: string): Promise<SessionLinkRow[]> {
    return this.#db
      .select()
      .from(sessionLinks)
      .where(and(eq(sessionLinks.tenant, tenant), eq(sessionLinks.sessionId, sessionId)))
      .orderBy(desc(sessionLinks.createdAt))
      .limit(MAX_LINKS_LISTED);
  }

  /** Revokes once (a second revoke keeps the first time); undefined when the session has no such link. */
  async revoke(tenant: string, sessionId: string, id: string, now: number): Promise<SessionLinkRow | undefined> {
    const rows = await this.#db
      .update(sessionLinks)
      .set({ revokedAt: sql`coalesce(${sessionLinks.revokedAt}, ${now})` })
      .where(and(eq(sessionLinks.id, id), eq(sessionLinks.tenant, tenant), eq(sessionLinks.sessionId, sessionId)))
      .returning();
    return rows[0];
  }
}
