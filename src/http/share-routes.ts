/**
 * REST for sharing: a session's shares (`GET|POST /v1/sessions/:id/shares`,
 * `DELETE /v1/sessions/:id/shares/:user`) and its viewer links
 * (`GET|POST /v1/sessions/:id/links`, `DELETE /v1/sessions/:id/links/:linkId`),
 * for the owner or the tenant's admin; `GET /v1/link` tells the page a link
 * opens which session that is. A viewer link may only read its session.
 * @module
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import * as z from "zod";
import { ErrorCode, linkFragment, readOnly, zLinkRequest, zShareRole, zShareUser, type Link } from "@hermes-edge/protocol";
import type { SessionLinkRow } from "../../schema/session-links.js";
import { LinkStore, linkStatus } from "../db/link-store.js";
import { ShareStore } from "../db/share-store.js";
import type { Env } from "../env.js";
import { DEFAULT_LINK_SECONDS, LINK_ID_PATTERN } from "../keys/link-token.js";
import { shareSession, shareView, unshareSession, type SharePorts } from "../connection/share-session.js";
import type { AuthVariables } from "./auth.js";
import { httpError } from "./http-error.js";
import { accessibleSession, type Caller } from "./owned-session.js";
import { jsonBody } from "./validate.js";

type Ctx = Context<{ Bindings: Env; Variables: AuthVariables }>;

const zShareBody = z.strictObject({ user: zShareUser, role: zShareRole });

/** What a viewer link may reach: reads of sessions (the access check then keeps it to its own) and `/v1/link`. */
const LINK_READS = /^\/v1\/(link|sessions(\/[^/]+(\/(history|lineage|subagents))?)?)$/;

export function callerOf(c: Ctx): Caller {
  return { tenant: c.get("tenant"), principal: c.get("principal") };
}

/** A viewer link reads; anything else it asks for is a 403 read_only. */
export function linkScope(): MiddlewareHandler<{ Bindings: Env; Variables: AuthVariables }> {
  return async function linkScopeMiddleware(c, next) {
    if (c.get("principal").link && (c.req.method !== "GET" || !LINK_READS.test(c.req.path))) throw forbidden();
    await next();
  };
}

export const shareRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .get("/link", async (c) => {
    const link = c.get("principal").link;
    const row = link ? await new LinkStore(c.env.DB).get(link.id) : undefined;
    if (!row) throw httpError(ErrorCode.resourceNotFound, "this credential is not a viewer link");
    return c.json({ sessionId: row.sessionId, role: row.role, expiresAt: iso(row.expiresAt) });
  })
  .get("/sessions/:id/shares", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    const shares = await new ShareStore(c.env.DB).list(row.tenant, row.id);
    return c.json({ sessionId: row.id, owner: row.owner, shares: shares.map(shareView) });
  })
  .post("/sessions/:id/shares", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    const body = await jsonBody(c, zShareBody);
    return c.json({ sessionId: row.id, owner: row.owner, shares: await shareSession(ports(c), row, body.user, body.role) });
  })
  .delete("/sessions/:id/shares/:user", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    const user = zShareUser.safeParse(c.req.param("user"));
    if (!user.success) throw httpError(ErrorCode.invalidParams, "invalid user", user.error.issues);
    return c.json({ sessionId: row.id, owner: row.owner, shares: await unshareSession(ports(c), row, user.data) });
  })
  .get("/sessions/:id/links", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    const now = Date.now();
    const links = await new LinkStore(c.env.DB).list(row.tenant, row.id);
    return c.json({ sessionId: row.id, links: links.map((l) => linkView(l, now)) });
  })
  .post("/sessions/:id/links", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    if (row.kind === "subagent") throw httpError(ErrorCode.invalidParams, "a sub-agent is shared with its parent: make the link on the parent session");
    const body = await jsonBody(c, zLinkRequest);
    const now = Date.now();
    const expiresAt = now + (body.expiresIn ?? DEFAULT_LINK_SECONDS) * 1000;
    const made = await new LinkStore(c.env.DB).create({ tenant: row.tenant, sessionId: row.id, createdBy: c.get("principal").user, expiresAt }, now);
    const url = `${new URL(c.req.url).origin}/${linkFragment(row.id, made.token)}`;
    const link: Link = { id: made.row.id, url, expiresAt: iso(expiresAt), role: "viewer" };
    return c.json(link, 201);
  })
  .delete("/sessions/:id/links/:linkId", async (c) => {
    const { row } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "manage");
    const id = c.req.param("linkId");
    const now = Date.now();
    const revoked = LINK_ID_PATTERN.test(id) ? await new LinkStore(c.env.DB).revoke(row.tenant, row.id, id, now) : undefined;
    if (!revoked) throw httpError(ErrorCode.resourceNotFound, "no such link");
    return c.json(linkView(revoked, now));
  });

function ports(c: Ctx): SharePorts {
  return { db: c.env.DB, session: (id) => c.env.SESSION.get(c.env.SESSION.idFromName(id)), now: Date.now() };
}

/** A link as listings show it: never its secret (which only its URL ever held). */
function linkView(row: SessionLinkRow, now: number) {
  return {
    id: row.id,
    role: row.role,
    status: linkStatus(row, now),
    createdBy: row.createdBy,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    revokedAt: row.revokedAt === null ? null : iso(row.revokedAt),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function forbidden() {
  const err = readOnly("a viewer link may only read the session it opens");
  return httpError(err.code, err.message, err.data);
}
