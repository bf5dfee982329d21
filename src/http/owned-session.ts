/**
 * The session object behind a REST route, reached only after the D1 index says
 * the tenant owns that session: an unknown id is a 404 without waking (and so
 * creating) an empty object for it.
 */
import { zSessionId } from "../acp/params.js";
import { SessionIndex } from "../db/session-index.js";
import type { Env } from "../env.js";
import type { SessionRpc } from "../session/session-rpc.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";

/** @throws {HTTPException} 404 -32002 "no such session" for an unknown, foreign or malformed id. */
export async function ownedSessionObject(env: Env, tenant: string, sessionId: string): Promise<DurableObjectStub<SessionRpc>> {
  if (!zSessionId.safeParse(sessionId).success || !(await new SessionIndex(env.DB).get(tenant, sessionId))) {
    throw httpError(ErrorCode.resourceNotFound, "no such session");
  }
  return env.SESSION.get(env.SESSION.idFromName(sessionId));
}
