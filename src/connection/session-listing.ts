/**
 * `session/list` and `GET /v1/sessions`: one page of the sessions the caller
 * may read. The tenant's admin sees every session, as before users; a user
 * sees their own and those shared with them, each with `_meta.hermes.access`.
 */
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";
import { accessMeta, type AccessRole } from "@hermes-edge/protocol";
import type { SessionRow } from "../../schema/sessions.js";
import { LISTED_KINDS, SessionIndex, type ArchiveFilter } from "../db/session-index.js";
import { ShareStore } from "../db/share-store.js";
import { accessRootOf, isAdmin, roleOf, type Principal } from "../session/access.js";
import { sessionInfo } from "./session-info.js";

export interface ListQuery {
  cwd?: string | null | undefined;
  cursor?: string | null | undefined;
  archived?: ArchiveFilter | undefined;
}

/** @throws {RangeError} on a bad cursor. */
export async function listReadable(db: D1Database, tenant: string, principal: Principal, query: ListQuery): Promise<{ sessions: SessionInfo[]; nextCursor: string | null }> {
  const page = await new SessionIndex(db).list(tenant, { ...query, kinds: LISTED_KINDS, readableBy: principal });
  if (isAdmin(principal)) return { sessions: page.sessions.map(sessionInfo), nextCursor: page.nextCursor };
  const notOwn = page.sessions.filter((row) => row.owner !== principal.user).map(accessRootOf);
  const shares = principal.user === null ? [] : await new ShareStore(db).sharesFor(tenant, principal.user, [...new Set(notOwn)]);
  const sessions = page.sessions.map((row) => {
    const role = roleOf(principal, { ...facts(row), shares: shares.filter((s) => s.sessionId === accessRootOf(row)) }) ?? "viewer";
    return withAccess(sessionInfo(row), row, role);
  });
  return { sessions, nextCursor: page.nextCursor };
}

/** A session as a user sees it: `_meta.hermes.access` beside the index's own `_meta.hermes`. */
export function withAccess(info: SessionInfo, row: SessionRow, role: AccessRole): SessionInfo {
  const hermes = (info._meta as { hermes?: Record<string, unknown> } | undefined)?.hermes ?? {};
  return { ...info, _meta: { ...info._meta, hermes: { ...hermes, ...accessMeta({ owner: row.owner, role }).hermes } } };
}

function facts(row: SessionRow) {
  return { id: row.id, owner: row.owner, accessRoot: row.accessRoot };
}
