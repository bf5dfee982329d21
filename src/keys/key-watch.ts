/**
 * Closes a connection whose managed key is revoked (or expires) while it is
 * open. The Worker passes the key id to the connection object in
 * `KEY_ID_HEADER`; the object remembers it and checks it from its alarm every
 * `KEY_CHECK_INTERVAL_MS`, so a revoked key's sockets close within 60 s with
 * 4401 "key revoked". New connections with the key are refused at once by the
 * Worker. Connections made with a bootstrap token carry no key id and are not watched.
 * A viewer link's connection is watched the same way (`LINK_ID_HEADER`), and
 * closes with 4403 "link revoked" or "link expired".
 * @module
 */
import { LINK_CLOSED_CODE } from "@hermes-edge/protocol";
import { ApiKeyStore, keyStatus, type KeyStatus } from "../db/api-keys.js";
import { LinkStore, linkStatus } from "../db/link-store.js";

/** Internal header set by the Worker after authentication; a client's own value is dropped. */
export const KEY_ID_HEADER = "X-Hermes-Key-Id";
export const LINK_ID_HEADER = "X-Hermes-Link-Id";
export const KEY_CHECK_INTERVAL_MS = 30_000;
export const KEY_REVOKED_CLOSE_CODE = 4401;
const STORAGE_KEY = "hermes.keyId";
const LINK_STORAGE_KEY = "hermes.linkId";

/** After the upgrade is accepted: remember the key and schedule its first check. */
export async function watchKey(ctx: DurableObjectState, request: Request): Promise<void> {
  const keyId = request.headers.get(KEY_ID_HEADER);
  const linkId = request.headers.get(LINK_ID_HEADER);
  if (!keyId && !linkId) return;
  if (keyId) await ctx.storage.put(STORAGE_KEY, keyId);
  if (linkId) await ctx.storage.put(LINK_STORAGE_KEY, linkId);
  await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
}

/**
 * From the connection object's alarm. Closes every open socket when the key
 * is no longer active; otherwise checks again later. Stops once the sockets are gone.
 */
export async function checkKey(ctx: DurableObjectState, db: D1Database): Promise<void> {
  const linkId = await ctx.storage.get<string>(LINK_STORAGE_KEY);
  if (linkId) return checkLink(ctx, db, linkId);
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
  const linkId = await ctx.storage.get<string>(LINK_STORAGE_KEY);
  if (linkId) {
    const link = await new LinkStore(db).get(linkId);
    return link ? linkStatus(link, Date.now()) : "revoked";
  }
  const keyId = await ctx.storage.get<string>(STORAGE_KEY);
  if (!keyId) return "active";
  const row = await new ApiKeyStore(db).get(keyId);
  return row ? keyStatus(row, Date.now()) : "revoked";
}

/** As for a key: a revoked or expired link's viewers are closed, with the reason the page shows. */
async function checkLink(ctx: DurableObjectState, db: D1Database, linkId: string): Promise<void> {
  const open = ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  if (open.length === 0) return ctx.storage.delete(LINK_STORAGE_KEY).then(() => undefined);
  let status;
  try {
    const row = await new LinkStore(db).get(linkId);
    status = row ? linkStatus(row, Date.now()) : "revoked";
  } catch (err) {
    console.error("link check failed; trying again", { linkId, err: String(err) });
    status = "active" as const;
  }
  if (status === "active") {
    await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
    return;
  }
  for (const ws of open) ws.close(LINK_CLOSED_CODE, status === "expired" ? "link expired" : "link revoked");
}
