/**
 * The one access check of the REST routes on a session: the D1 index (and the
 * session's shares) say whether the caller may do `action` with it. A session
 * that is none of the caller's is a 404, exactly like an unknown id, found
 * without waking (and so creating) an empty object for it; too little a role
 * is a 403 with `reason: "read_only"`.
 */
import { readOnly } from "@hermes-edge/protocol";
import type { SessionRow } from "../../schema/sessions.js";
import { zSessionId } from "../acp/params.js";
import { SessionIndex } from "../db/session-index.js";
import { ShareStore } from "../db/share-store.js";
import type { Env } from "../env.js";
import { allows, isAdmin, type Action, type Principal } from "../session/access.js";
import type { SessionRpc } from "../session/session-rpc.js";
import { ErrorCode, type AccessRole } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";

export interface Caller {
  tenant: string;
  principal: Principal;
}

/** @throws {HTTPException} 404 -32002 "no such session"; 403 -32001 read_only for a role that does not allow `action`. */
export async function accessibleSession(env: Env, caller: Caller, sessionId: string, action: Action): Promise<{ row: SessionRow; role: AccessRole }> {
  if (!zSessionId.safeParse(sessionId).success) throw notFound();
  if (isAdmin(caller.principal)) {
    const row = await new SessionIndex(env.DB).get(caller.tenant, sessionId);
    if (!row) throw notFound();
    return { row, role: "admin" };
  }
  const found = await new ShareStore(env.DB).access(caller.tenant, caller.principal, sessionId);
  if (!found) throw notFound();
  if (!allows(found.role, action)) {
    const err = readOnly();
    throw httpError(err.code, err.message, err.data);
  }
  return found;
}

/** The session object behind a route, once `action` is allowed. */
export async function ownedSessionObject(env: Env, caller: Caller, sessionId: string, action: Action): Promise<DurableObjectStub<SessionRpc>> {
  await accessibleSession(env, caller, sessionId, action);
  return env.SESSION.get(env.SESSION.idFromName(sessionId));
}

function notFound() {
  return httpError(ErrorCode.resourceNotFound, "no such session");
}
