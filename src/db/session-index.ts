/**
 * Reads and writes of the D1 session index through drizzle. Listing is keyset
 * paginated (newest first) behind an opaque cursor, always scoped to a tenant.
 */
import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { segments, type NewSegmentRow } from "../../schema/segments.js";
import { sessions, type NewSessionRow, type SessionRow } from "../../schema/sessions.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { sessionShares } from "../../schema/session-shares.js";
import { EVERYONE } from "@hermes-edge/protocol";
import { isAdmin, type Principal } from "../session/access.js";
import type { MemoryRead, StoredMemory } from "./memory-store.js";

/**
 * The sessions a user (or a link) may read, as one SQL condition: its own, and
 * those whose access root is shared with it or with everyone. Sub-agents follow
 * their access root; a link reads only its session and that session's sub-agents.
 */
export function readableCondition(tenant: string, p: Principal): SQL {
  const root = sql`coalesce(${sessions.accessRoot}, ${sessions.id})`;
  if (p.link) return sql`${root} = ${p.link.sessionId}`;
  const user = p.user ?? "";
  const shared = sql`select ${sessionShares.sessionId} from ${sessionShares} where ${sessionShares.tenant} = ${tenant} and ${sessionShares.user} in (${user}, ${EVERYONE})`;
  return or(eq(sessions.owner, user), sql`${root} in (${shared})`)!;
}

/** The same rule for a query that reads `sessions` as `s` (the search): empty for the tenant's admin. */
export function readableFilter(tenant: string, p: Principal | undefined): SQL {
  if (!p || isAdmin(p)) return sql``;
  if (p.link) return sql` AND coalesce(s.access_root, s.id) = ${p.link.sessionId}`;
  const user = p.user ?? "";
  return sql` AND (s.owner = ${user} OR coalesce(s.access_root, s.id) IN (SELECT session_id FROM session_shares WHERE tenant = ${tenant} AND user IN (${user}, ${EVERYONE})))`;
}

/** What may change in a session's index row. */
export type SessionPatch = Partial<Omit<NewSessionRow, "id" | "tenant">>;
/** A statement for another batch (`SearchIndex.add`): the session's row updated. */
export type SessionIndexUpdate = ReturnType<SessionIndex["updateStatement"]>;

export const PAGE_SIZE = 50;
export type ArchiveFilter = "exclude" | "include" | "only";
/** What `session/list` and `GET /v1/sessions` show: sub-agents are listed under their parent instead. */
export const LISTED_KINDS: SessionRow["kind"][] = ["root", "fork"];
/** Children listed per parent; a delegate_task call spawns at most 10, so this is many calls' worth. */
export const MAX_CHILDREN_LISTED = 500;

export class SessionIndex {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /**
   * A new session's row and its first segment in one batch: neither is ever in D1 without the other.
   * `memory`, the project memory's read, goes in the same batch (one round trip, one subrequest) and its rows come back.
   */
  async insert(row: NewSessionRow, firstSegment: NewSegmentRow, memory?: MemoryRead): Promise<StoredMemory[] | undefined> {
    const writes = [this.#db.insert(sessions).values(row), this.#db.insert(segments).values(firstSegment)] as const;
    if (!memory) {
      await this.#db.batch(writes);
      return undefined;
    }
    const [, , rows] = await this.#db.batch([...writes, memory]);
    return rows;
  }

  async update(id: string, patch: SessionPatch): Promise<void> {
    await this.updateStatement(id, patch);
  }

  /** `update` as a statement not yet run, for a caller that sends it in a D1 batch of its own. */
  updateStatement(id: string, patch: SessionPatch) {
    return this.#db.update(sessions).set(patch).where(eq(sessions.id, id));
  }

  /** A session's row and every segment of it, in one batch. */
  async deleteWithSegments(id: string): Promise<void> {
    await this.#db.batch([this.#db.delete(segments).where(eq(segments.acpSessionId, id)), this.#db.delete(sessions).where(eq(sessions.id, id))]);
  }

  async get(tenant: string, id: string): Promise<SessionRow | undefined> {
    const rows = await this.#db
      .select()
      .from(sessions)
      .where(and(eq(sessions.tenant, tenant), eq(sessions.id, id)))
      .limit(1);
    return rows[0];
  }

  /**
   * One page of a tenant's sessions, newest first; throws `RangeError` on a bad cursor.
   * Archived sessions are left out unless `archived` is `include` or `only`.
   */
  async list(
    tenant: string,
    options: {
      cwd?: string | null;
      cursor?: string | null;
      kind?: SessionRow["kind"];
      kinds?: SessionRow["kind"][];
      archived?: ArchiveFilter;
      /** Only what this principal may read (its own sessions and those shared with it); absent: the whole tenant. */
      readableBy?: Principal;
    },
  ) {
    const conditions: SQL[] = [eq(sessions.tenant, tenant)];
    if (options.readableBy && !isAdmin(options.readableBy)) conditions.push(readableCondition(tenant, options.readableBy));
    const archived = options.archived ?? "exclude";
    if (archived !== "include") conditions.push(eq(sessions.archived, archived === "only"));
    if (options.cwd) conditions.push(eq(sessions.cwd, options.cwd));
    if (options.kind) conditions.push(eq(sessions.kind, options.kind));
    if (options.kinds) conditions.push(inArray(sessions.kind, options.kinds));
    if (options.cursor) {
      const after = decodeCursor(options.cursor);
      conditions.push(
        or(lt(sessions.updatedAt, after.updatedAt), and(eq(sessions.updatedAt, after.updatedAt), lt(sessions.id, after.id)))!,
      );
    }
    const rows = await this.#db
      .select()
      .from(sessions)
      .where(and(...conditions))
      .orderBy(desc(sessions.updatedAt), desc(sessions.id))
      .limit(PAGE_SIZE + 1);
    const page = rows.slice(0, PAGE_SIZE);
    const last = page[page.length - 1];
    const nextCursor = rows.length > PAGE_SIZE && last ? encodeCursor({ updatedAt: last.updatedAt, id: last.id }) : null;
    return { sessions: page, nextCursor };
  }

  /** A session's sub-agents, oldest first (the order they were spawned). */
  async children(tenant: string, parentId: string): Promise<SessionRow[]> {
    return this.#db
      .select()
      .from(sessions)
      .where(and(eq(sessions.tenant, tenant), eq(sessions.parentId, parentId), eq(sessions.kind, "subagent")))
      .orderBy(asc(sessions.createdAt), asc(sessions.id))
      .limit(MAX_CHILDREN_LISTED);
  }
}
