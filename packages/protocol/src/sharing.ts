/**
 * People in a tenant: the shapes of sharing that the service, the proxy and
 * the web client all read. `_meta.hermes.access` on a listed session says
 * whose it is and what the caller may do with it; `_meta.hermes.author` on a
 * `user_message_chunk` says who wrote the prompt; `_hermes/session/share` and
 * `_hermes/session/unshare` change who else may open a session.
 * @module
 */
import * as z from "zod";
import { ErrorCode, RequestError } from "./errors.js";
import { loose } from "./loose.js";

/** A user of a tenant: the tenant-name rule (letters, digits and `. _ @ -`). */
export const zUserName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, "letters, digits and . _ @ - only, starting with a letter or digit");

/** Shares with everyone in the tenant. */
export const EVERYONE = "*";
export const zShareUser = z.union([z.literal(EVERYONE), zUserName]);

export const zShareRole = z.enum(["viewer", "driver"]);
export type ShareRole = z.infer<typeof zShareRole>;

/** What a caller is to a session: `admin` is a key without a user (the tenant's admin). */
export const zAccessRole = z.enum(["owner", "driver", "viewer", "admin"]);
export type AccessRole = z.infer<typeof zAccessRole>;

/** `_meta.hermes.access`: the session's owner (null for a session an admin key made) and the caller's role. */
export const zAccess = z.object({ owner: z.string().nullable(), role: zAccessRole });
export type Access = z.infer<typeof zAccess>;
const zAccessMeta = loose({ hermes: loose({ access: zAccess }) });

export function accessMeta(access: Access): { hermes: { access: Access } } {
  return { hermes: { access } };
}

/** A listed session's `_meta.hermes.access`, if there. */
export function readAccess(meta: unknown): Access | undefined {
  const parsed = zAccessMeta.safeParse(meta);
  return parsed.success ? parsed.data.hermes.access : undefined;
}

/** `_meta.hermes.author` on a `user_message_chunk`: the user whose prompt it is (absent for an admin key). */
export const zAuthor = z.object({ user: zUserName });
export type Author = z.infer<typeof zAuthor>;
const zAuthorMeta = loose({ hermes: loose({ author: zAuthor }) });

export function readAuthor(meta: unknown): Author | undefined {
  const parsed = zAuthorMeta.safeParse(meta);
  return parsed.success ? parsed.data.hermes.author : undefined;
}

export const SESSION_SHARE = "_hermes/session/share";
export const SESSION_UNSHARE = "_hermes/session/unshare";

export const zShareParams = z.object({ sessionId: z.string().min(1).max(128), user: zShareUser, role: zShareRole });
export type ShareParams = z.infer<typeof zShareParams>;
export const zUnshareParams = z.object({ sessionId: z.string().min(1).max(128), user: zShareUser });
export type UnshareParams = z.infer<typeof zUnshareParams>;

/** One entry of a session's shares, as `GET /v1/sessions/:id/shares` and the share methods answer. */
export const zShare = z.object({ user: zShareUser, role: zShareRole, createdAt: z.string() });
export type Share = z.infer<typeof zShare>;

/** `POST /v1/sessions/:id/links` body and answer. */
export const zLinkRequest = z.strictObject({
  role: z.literal("viewer"),
  /** Seconds until the link stops working; default 7 days, at most 90 days. */
  expiresIn: z.number().int().min(60).max(90 * 24 * 3600).optional(),
});
export const zLink = z.object({ id: z.string(), url: z.string(), expiresAt: z.string(), role: z.literal("viewer") });
export type Link = z.infer<typeof zLink>;

/** What a viewer link token opens: `GET /v1/link` answers it for the page the link leads to. */
export const zLinkInfo = z.object({ sessionId: z.string(), role: z.literal("viewer"), expiresAt: z.string() });
export type LinkInfo = z.infer<typeof zLinkInfo>;

/** The link's fragment: `#session=<id>&link=<token>` (a fragment never reaches a server log). */
export function linkFragment(sessionId: string, token: string): string {
  return `#session=${encodeURIComponent(sessionId)}&link=${encodeURIComponent(token)}`;
}

export function readLinkFragment(hash: string): { sessionId: string; token: string } | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const sessionId = params.get("session");
  const token = params.get("link");
  return sessionId && token ? { sessionId, token } : undefined;
}

/** A request the caller's role does not allow: -32001 with `data.reason: "read_only"` (403 on REST). */
export function readOnly(detail = "your role on this session does not allow this"): RequestError {
  return new RequestError(ErrorCode.forbidden, "Forbidden", { reason: "read_only", detail });
}

/** The WebSocket close code and reason when a viewer link stops working. */
export const LINK_CLOSED_CODE = 4403;
