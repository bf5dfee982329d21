/**
 * The sharing REST routes as the web client calls them: a session's shares
 * and viewer links, with the signed-in key (the owner's or the admin's), and
 * what a viewer link's page asks before it connects.
 * @module
 */
import { zHttpErrorBody, zLink, zLinkInfo, zShare, type Link, type LinkInfo, type Share, type ShareRole } from "@hermes-edge/protocol";
import { z } from "zod";

const zShares = z.object({ shares: z.array(zShare) });

export class SharingError extends Error {}

async function send<T>(key: string, method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const parsed = zHttpErrorBody.safeParse(json);
    throw new SharingError(parsed.success ? parsed.data.error.message : `HTTP ${res.status}`);
  }
  return schema.parse(json);
}

const sessionPath = (sessionId: string) => `/v1/sessions/${encodeURIComponent(sessionId)}`;

export function listShares(key: string, sessionId: string): Promise<Share[]> {
  return send(key, "GET", `${sessionPath(sessionId)}/shares`, zShares).then((r) => r.shares);
}

export function addShare(key: string, sessionId: string, user: string, role: ShareRole): Promise<Share[]> {
  return send(key, "POST", `${sessionPath(sessionId)}/shares`, zShares, { user, role }).then((r) => r.shares);
}

export function removeShare(key: string, sessionId: string, user: string): Promise<Share[]> {
  return send(key, "DELETE", `${sessionPath(sessionId)}/shares/${encodeURIComponent(user)}`, zShares).then((r) => r.shares);
}

export function createViewerLink(key: string, sessionId: string): Promise<Link> {
  return send(key, "POST", `${sessionPath(sessionId)}/links`, zLink, { role: "viewer" });
}

/** What a viewer link opens; throws with the service's words ("this link has expired", "this link was revoked"). */
export function linkInfo(token: string): Promise<LinkInfo> {
  return send(token, "GET", "/v1/link", zLinkInfo);
}
