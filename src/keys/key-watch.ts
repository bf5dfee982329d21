/**
 * Closes a connection whose managed key is revoked (or expires) while it is
 * open. The Worker passes the key id to the connection object in
 * `KEY_ID_HEADER`; the object remembers it and checks it from its alarm every
 * `KEY_CHECK_INTERVAL_MS`, so a revoked key's sockets close within 60 s with
 * 4401 "key revoked". New connections with the key are refused at once by the
 * Worker. Connections made with a bootstrap token carry no key id and are not watched.
 * @module
 */
import { ApiKeyStore, keyStatus, type KeyStatus } from "../db/api-keys.js";

/** Internal header set by the Worker after authentication; a client's own value is dropped. */
export const KEY_ID_HEADER = "X-Hermes-Key-Id";
export const KEY_CHECK_INTERVAL_MS = 30_000;
export const KEY_REVOKED_CLOSE_CODE = 4401;
const STORAGE_KEY = "hermes.keyId";

/** After the upgrade is accepted: remember the key and schedule its first check. */
export async function watchKey(ctx: DurableObjectState, request: Request): Promise<void> {
  const keyId = request.headers.get(KEY_ID_HEADER);
  if (!keyId) return;
  await ctx.storage.put(STORAGE_KEY, keyId);
  await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
}

/**
 * From the connection object's alarm. Closes every open socket when the key
 * is no longer active; otherwise checks again later. Stops once the sockets are gone.
 */
export async function checkKey(ctx: DurableObjectState, db: D1Database): Promise<void> {
  const keyId = await ctx.storage.get<string>(STORAGE_KEY);
  if (!keyId) return;
  const open = ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  if (open.length === 0) {
    await ctx.storage.delete(STORAGE_KEY);
    return;
  }
  let row;
  try {
    row = await new ApiKeyStore(db).get(keyId);
  } catch (err) {
    console.error("key check failed; trying again", { keyId, err: String(err) });
    await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
    return;
  }
  const status = row ? keyStatus(row, Date.now()) : "revoked";
  if (status === "active") {
    await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
    return;
  }
  for (const ws of open) ws.close(KEY_REVOKED_CLOSE_CODE, status === "expired" ? "key expired" : "key revoked");
}

/**
 * The connection's managed key as D1 has it now, not as the alarm last saw
 * it (up to `KEY_CHECK_INTERVAL_MS` ago): for `authenticate`, which must not
 * log a revoked key back in. A bootstrap token's connection has no key: "active".
 */
export async function currentKeyStatus(ctx: DurableObjectState, db: D1Database): Promise<KeyStatus> {
  const keyId = await ctx.storage.get<string>(STORAGE_KEY);
  if (!keyId) return "active";
  const row = await new ApiKeyStore(db).get(keyId);
  return row ? keyStatus(row, Date.now()) : "revoked";
}
