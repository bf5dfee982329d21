/**
 * `session/delete`. The session object deletes its storage, its index row and
 * its segments. An index row whose object never kept a record (a `session/new`
 * cut off between the two) has nobody to delete it there, so it goes here: it
 * would otherwise stay listed for good while no method could open or delete it.
 */
import { ErrorCode, RequestError } from "@hermes-edge/protocol";
import type { Connection } from "./connection.js";
import { unwrap } from "./unwrap.js";

export async function deleteSession(connection: Connection, sessionId: string): Promise<Record<string, never>> {
  // Someone else's session deletes "silently" like an unknown one; a shared one needs the owner (or admin).
  let ref;
  try {
    ref = await connection.access(sessionId, "manage");
  } catch (err) {
    if (err instanceof RequestError && err.code === ErrorCode.resourceNotFound) return {};
    throw err;
  }
  unwrap(await connection.session(sessionId).destroy(ref));
  connection.forgetSession(sessionId);
  if (await connection.index.get(connection.ref().tenant, sessionId)) await connection.index.deleteWithSegments(sessionId);
  return {};
}
