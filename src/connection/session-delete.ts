/**
 * `session/delete`. The session object deletes its storage, its index row and
 * its segments. An index row whose object never kept a record (a `session/new`
 * cut off between the two) has nobody to delete it there, so it goes here: it
 * would otherwise stay listed for good while no method could open or delete it.
 */
import type { Connection } from "./connection.js";
import { unwrap } from "./unwrap.js";

export async function deleteSession(connection: Connection, sessionId: string): Promise<Record<string, never>> {
  unwrap(await connection.session(sessionId).destroy(connection.ref()));
  connection.forgetSession(sessionId);
  if (await connection.index.get(connection.ref().tenant, sessionId)) await connection.index.deleteWithSegments(sessionId);
  return {};
}
