/**
 * A session's shares in D1 and what a principal may do with a session,
 * answered from the index row and the shares of its access root in one batch
 * (see `session/access.ts` for the decisions themselves).
 * @module
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { EVERYONE, type AccessRole, type ShareRole } from "@hermes-edge/protocol";
import { sessionShares, type SessionShareRow } from "../../schema/session-shares.js";
import { sessions, type SessionRow } from "../../schema/sessions.js";
import { accessRootOf, isAdmin, roleOf, type Principal } from "../session/access.js";

/** A session's shares, with at most this many entries (a team is smaller). */
export const MAX_SHARES = 200;

export interface ResolvedAccess {
  row: SessionRow;
  role: AccessRole;
}

export class ShareStore {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  async list(tenant: string, sessionId: string): Promise<SessionShareRow[]> {
    return this.#db
      .select()
      .from(sessionShares)
      .where(and(eq(sessionShares.tenant, tenant), eq(sessionShares.sessionId, sessionId)))
      .orderBy(asc(sessionShares.createdAt), asc(sessionShares.user))
      .limit(MAX_SHARES);
  }

  /** The shares naming `user` (or everyone) on any of `sessionIds`, for a listing's roles. */
  async sharesFor(tenant: string, user: string, sessionIds: string[]): Promise<SessionShareRow[]> {
    if (sessionIds.length === 0) return [];
    return this.#db
      .select()
      .from(sessionShares)
      .where(and(eq(sessionShares.tenant, tenant), inArray(sessionShares.sessionId, sessionIds), inArray(sessionShares.user, [user, EVERYONE])));
  }

  /** Adds or changes one user's role. */
  async put(tenant: string, sessionId: string, user: string, role: ShareRole, now: number): Promise<void> {
    await this.#db
      .insert(sessionShares)
      .values({ tenant, sessionId, user, role, createdAt: now })
      .onConflictDoUpdate({ target: [sessionShares.sessionId, sessionShares.user], set: { role } });
  }

  /** True if there was a share to take away. */
  async remove(tenant: string, sessionId: string, user: string): Promise<boolean> {
    const rows = await this.#db
      .delete(sessionShares)
      .where(and(eq(sessionShares.tenant, tenant), eq(sessionShares.sessionId, sessionId), eq(sessionShares.user, user)))
      .returning();
    return rows.length > 0;
  }

  /**
   * The session's row and the principal's role on it, or undefined when the
   * session is unknown, another tenant's, or none of the principal's.
   */
  async access(tenant: string, principal: Principal, sessionId: string): Promise<ResolvedAccess | undefined> {
    const rows = await this.#db.select().from(sessions).where(and(eq(sessions.tenant, tenant), eq(sessions.id, sessionId))).limit(1);
    const row = rows[0];
    if (!row) return undefined;
    const needShares = !isAdmin(principal) && !principal.link && row.owner !== principal.user;
    const shares = needShares ? await this.list(tenant, accessRootOf(row)) : [];
    const role = roleOf(principal, { id: row.id, owner: row.owner, accessRoot: row.accessRoot, shares });
    return role === null ? undefined : { row, role };
  }
}
