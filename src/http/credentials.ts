/**
 * Which tenant (and user) a presented credential belongs to. Three kinds are
 * accepted: a managed key (`he_…`, looked up in D1 by its SHA-256), a
 * bootstrap token from `HERMES_EDGE_TOKENS` (compared in constant time against
 * every entry; `tenant/user:token` names its user) and a viewer link's token
 * (`hl_…`, by its SHA-256), which opens one session read-only.
 * @module
 */
import { tokenTable } from "../config.js";
import { ApiKeyStore, keyStatus } from "../db/api-keys.js";
import { LinkStore, linkStatus } from "../db/link-store.js";
import { looksLikeApiKey, secretsEqual } from "../keys/api-key.js";
import { looksLikeLinkToken } from "../keys/link-token.js";

export type FailureReason = "missing" | "unknown" | "revoked" | "expired";

export type CredentialCheck =
  | {
      ok: true;
      tenant: string;
      /** The key's user; undefined for the tenant's admin (a key or token without one) and for a link. */
      user: string | undefined;
      keyId: string | undefined;
      /** A viewer link: the one session it opens. */
      link?: { id: string; sessionId: string };
    }
  | { ok: false; reason: FailureReason; message: string };

export interface CredentialContext {
  db: D1Database;
  bootstrapTokens: string | undefined;
  now: number;
  /** Runs the `last_used_at` write after the response (the request never waits for it). */
  waitUntil: (promise: Promise<unknown>) => void;
}

export async function checkCredential(token: string | undefined, ctx: CredentialContext): Promise<CredentialCheck> {
  if (!token) return { ok: false, reason: "missing", message: "missing credentials: send Authorization: Bearer <key>" };
  const owner = await bootstrapOwner(token, ctx.bootstrapTokens);
  if (owner !== undefined) {
    const [tenant, user] = owner.split("/") as [string, string | undefined];
    return { ok: true, tenant, user, keyId: undefined };
  }
  if (looksLikeLinkToken(token)) return checkLink(token, ctx);
  if (!looksLikeApiKey(token)) return { ok: false, reason: "unknown", message: "unknown token" };
  const keys = new ApiKeyStore(ctx.db);
  const row = await keys.findByKey(token);
  if (!row) return { ok: false, reason: "unknown", message: "unknown key" };
  const status = keyStatus(row, ctx.now);
  if (status !== "active") return { ok: false, reason: status, message: refusalMessage("key", status) };
  ctx.waitUntil(keys.touch(row, ctx.now).catch((err) => console.error("last_used_at write failed", { keyId: row.id, err: String(err) })));
  return { ok: true, tenant: row.tenant, user: row.user ?? undefined, keyId: row.id };
}

/** What a 401 says of a revoked or expired credential; a Streamable HTTP connection it ended says the same. */
export function refusalMessage(kind: "key" | "link", status: "revoked" | "expired"): string {
  if (kind === "key") return status === "revoked" ? "key revoked" : "key expired";
  return status === "revoked" ? "this link was revoked" : "this link has expired";
}

async function checkLink(token: string, ctx: CredentialContext): Promise<CredentialCheck> {
  const row = await new LinkStore(ctx.db).findByToken(token);
  if (!row) return { ok: false, reason: "unknown", message: "unknown link" };
  const status = linkStatus(row, ctx.now);
  if (status !== "active") return { ok: false, reason: status, message: refusalMessage("link", status) };
  return { ok: true, tenant: row.tenant, user: undefined, keyId: undefined, link: { id: row.id, sessionId: row.sessionId } };
}

/** Every entry is compared, matched or not, so timing says nothing about which (or whether one) matched. */
async function bootstrapOwner(token: string, raw: string | undefined): Promise<string | undefined> {
  let found: string | undefined;
  for (const [candidate, owner] of tokenTable(raw)) {
    if ((await secretsEqual(token, candidate)) && found === undefined) found = owner;
  }
  return found;
}
