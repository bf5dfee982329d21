/**
 * `session/status`, `session/archive` and `session/unarchive` (unstable ACP),
 * answered from the D1 index so that asking never wakes (or changes) a session
 * object; only archiving an active session does, to close it first. Unknown and
 * foreign sessions are -32002 with the requested `sessionId` in `data`.
 */
import { sessionNotFound } from "@hermes-edge/protocol";
import type { ArchiveSessionResponse, SessionStatusResponse, UnarchiveSessionResponse } from "@agentclientprotocol/sdk/unstable";
import type { SessionRow } from "../../schema/sessions.js";
import type { Connection } from "./connection.js";
import { isAdmin, requireAccess, type Action } from "../session/access.js";
import { unwrap } from "./unwrap.js";

/**
 * The tenant's index row for `sessionId` if the caller's role allows `action`:
 * -32002 naming it when it is none of theirs, -32001 read_only for too little.
 */
export async function ownedSession(connection: Connection, sessionId: string, action: Action): Promise<SessionRow> {
  const principal = connection.principal();
  const tenant = connection.ref().tenant;
  if (isAdmin(principal)) {
    const row = await connection.index.get(tenant, sessionId);
    if (!row) throw sessionNotFound(sessionId);
    return row;
  }
  const found = await connection.shares.access(tenant, principal, sessionId);
  requireAccess(found?.role ?? null, action, sessionId);
  return found!.row;
}

/**
 * `open`: some connection has it active (a turn may be running, editors may be
 * attached), archived or not; `saved`: closed or a finished sub-agent, to be
 * loaded or resumed. Archiving closes a session, but a client may load it again
 * without unarchiving it, and then it is in memory like any other.
 */
export function statusOf(row: SessionRow): SessionStatusResponse {
  // A sub-agent's row stays "active" when its task ends; the end is its `endReason`.
  const finishedSubagent = row.kind === "subagent" && row.endReason !== null;
  return { status: row.status === "active" && !finishedSubagent ? "open" : "saved" };
}

/** Closes the session first if it is active (as `session/close` would), then archives it; twice is fine. */
export async function archiveSession(connection: Connection, sessionId: string): Promise<ArchiveSessionResponse> {
  const row = await ownedSession(connection, sessionId, "manage");
  if (row.status === "active") {
    unwrap(await connection.session(sessionId).close({ ...connection.ref(), role: "admin" }));
    connection.forgetSession(sessionId);
  }
  if (!row.archived) await connection.index.update(sessionId, { archived: true });
  return {};
}

/** Back into the default `session/list`; never loads or resumes it. Unarchiving an unarchived session is fine. */
export async function unarchiveSession(connection: Connection, sessionId: string): Promise<UnarchiveSessionResponse> {
  const row = await ownedSession(connection, sessionId, "manage");
  if (row.archived) await connection.index.update(sessionId, { archived: false });
  return {};
}
