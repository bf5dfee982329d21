/**
 * Closes a connection whose managed key is revoked (or expires) while it is
 * open. The Worker passes the key id to the connection object in
 * `KEY_ID_HEADER`; the object remembers it and checks it from its alarm every
 * `KEY_CHECK_INTERVAL_MS`, so a revoked key's sockets close within 60 s with
 * 4401 "key revoked". New connections with the key are refused at once by the
 * Worker. Connections made with a bootstrap token carry no key id and are not watched.
 * A viewer link's connection is watched the same way (`LINK_ID_HEADER`), and
 * closes with 4403 "link revoked" or "link expired". A Streamable HTTP
 * connection's SSE streams end the same way, and its later requests get the
 * 401 the Worker gives the credential itself.
 * @module
 */
import { LINK_CLOSED_CODE } from "@hermes-edge/protocol";
import { ApiKeyStore, keyStatus, type KeyStatus } from "../db/api-keys.js";
import { LinkStore, linkStatus } from "../db/link-store.js";
import { refusalMessage } from "../http/credentials.js";

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

/** How a watch ends a connection: a WebSocket's close, and the 401 a Streamable HTTP connection answers afterwards. */
export interface WatchEnd {
  closeCode: number;
  closeReason: string;
  /** As the Worker refuses the credential itself (src/http/credentials.ts). */
  message: string;
  reason: "revoked" | "expired";
}

/** A Streamable HTTP connection's side of the watch: its SSE streams, which keep it watched while open. */
export interface HttpWatch {
  streaming(): boolean;
  end(end: WatchEnd): Promise<void>;
}

/** The pure decision: what ends a connection whose key or link is no longer active. */
export function watchEnd(kind: "key" | "link", status: "revoked" | "expired"): WatchEnd {
  return {
    closeCode: kind === "key" ? KEY_REVOKED_CLOSE_CODE : LINK_CLOSED_CODE,
    closeReason: `${kind} ${status}`,
    message: refusalMessage(kind, status),
    reason: status,
  };
}

/**
 * From the connection object's alarm. Ends every open socket and SSE stream
 * when the key or link is no longer active; otherwise checks again later.
 * Stops once nothing is open (an HTTP connection keeps its ids: a stream it
 * opens later is watched again, `rewatch`).
 */
export async function checkKey(ctx: DurableObjectState, db: D1Database, http?: HttpWatch): Promise<void> {
  const linkId = await ctx.storage.get<string>(LINK_STORAGE_KEY);
  const keyId = linkId ? undefined : await ctx.storage.get<string>(STORAGE_KEY);
  if (!linkId && !keyId) return;
  const open = ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  if (open.length === 0 && !http?.streaming()) {
    if (!http) await ctx.storage.delete(linkId ? LINK_STORAGE_KEY : STORAGE_KEY);
    return;
  }
  let status: KeyStatus;
  try {
    status = linkId ? await linkNow(db, linkId) : await keyNow(db, keyId!);
  } catch (err) {
    console.error("key check failed; trying again", { keyId, linkId, err: String(err) });
    status = "active";
  }
  if (status === "active") {
    await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
    return;
  }
  const end = watchEnd(linkId ? "link" : "key", status);
  for (const ws of open) ws.close(end.closeCode, end.closeReason);
  await http?.end(end);
}

/** An HTTP connection's stream opened: watch again if the alarm stopped while none was open. */
export async function rewatch(ctx: DurableObjectState): Promise<void> {
  if ((await ctx.storage.getAlarm()) !== null) return;
  const watched = (await ctx.storage.get<string>(LINK_STORAGE_KEY)) ?? (await ctx.storage.get<string>(STORAGE_KEY));
  if (watched) await ctx.storage.setAlarm(Date.now() + KEY_CHECK_INTERVAL_MS);
}

/**
 * The connection's managed key as D1 has it now, not as the alarm last saw
 * it (up to `KEY_CHECK_INTERVAL_MS` ago): for `authenticate`, which must not
 * log a revoked key back in. A bootstrap token's connection has no key: "active".
 */
export async function currentKeyStatus(ctx: DurableObjectState, db: D1Database): Promise<KeyStatus> {
  const linkId = await ctx.storage.get<string>(LINK_STORAGE_KEY);
  if (linkId) return linkNow(db, linkId);
  const keyId = await ctx.storage.get<string>(STORAGE_KEY);
  return keyId ? keyNow(db, keyId) : "active";
}

async function keyNow(db: D1Database, keyId: string): Promise<KeyStatus> {
  const row = await new ApiKeyStore(db).get(keyId);
  return row ? keyStatus(row, Date.now()) : "revoked";
}

async function linkNow(db: D1Database, linkId: string): Promise<KeyStatus> {
  const row = await new LinkStore(db).get(linkId);
  return row ? linkStatus(row, Date.now()) : "revoked";
}
