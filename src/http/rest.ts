/**
 * REST reads of the session index, for dashboards and scripts. The same tenant
 * scoping as ACP: another tenant's session is a 404, like an unknown one.
 */
import { Hono } from "hono";
import * as z from "zod";
import { sessionInfo } from "../connection/session-info.js";
import { listReadable, withAccess } from "../connection/session-listing.js";
import { isAdmin } from "../session/access.js";
import { callerOf, linkScope, shareRoutes } from "./share-routes.js";
import { MAX_LINEAGE_LINKS, SegmentIndex } from "../db/segment-index.js";
import type { SegmentRow } from "../../schema/segments.js";
import type { RpcOutcome } from "../durable/rpc-outcome.js";
import type { Env } from "../env.js";
import type { SessionHistory } from "../session/session-rpc.js";
import { bearerAuth, type AuthVariables } from "./auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import { subagentRoutes } from "./subagent-routes.js";
import { memoryRoutes } from "./memory-routes.js";
import { accessibleSession, ownedSessionObject } from "./owned-session.js";
import { searchRoutes } from "./search-routes.js";
import { usageRoutes } from "./usage-routes.js";
import { queryOf } from "./validate.js";

const zListQuery = z.object({
  cwd: z.string().min(1).optional(),
  cursor: z.string().max(512).optional(),
  /** As `session/list`'s filter: archived sessions are left out unless asked for. */
  archived: z.enum(["exclude", "include", "only"]).optional(),
});

export const rest = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .use(bearerAuth())
  .use(linkScope())
  .route("/", shareRoutes)
  .get("/sessions", async (c) => {
    const query = queryOf(c, zListQuery);
    try {
      return c.json(await listReadable(c.env.DB, c.get("tenant"), c.get("principal"), query));
    } catch (err) {
      if (err instanceof RangeError) throw httpError(ErrorCode.invalidParams, "invalid cursor");
      throw err;
    }
  })
  .get("/sessions/:id/lineage", async (c) => {
    const tenant = c.get("tenant");
    // The admin reads lineage from the segments alone, as before users; anyone else needs read access.
    if (!isAdmin(c.get("principal"))) await accessibleSession(c.env, callerOf(c), c.req.param("id"), "read");
    const current = await new SegmentIndex(c.env.DB).current(tenant, c.req.param("id"));
    if (!current) throw notFound();
    const chain = await new SegmentIndex(c.env.DB).chain(tenant, current.id);
    // A chain of exactly the maximum that ends at its root is complete.
    const truncated = chain.length >= MAX_LINEAGE_LINKS && chain.at(-1)?.parentId != null;
    return c.json({ sessionId: c.req.param("id"), chain: chain.map(segmentView), truncated });
  })
  .get("/sessions/:id/history", async (c) => {
    const session = await ownedSessionObject(c.env, callerOf(c), c.req.param("id"), "read");
    // RPC typing drops the error branch (its `data` is unknown); the value is the plain outcome.
    const outcome = (await session.readHistory(c.get("tenant"))) as RpcOutcome<SessionHistory>;
    if (outcome.ok) return c.json(outcome.result);
    if (outcome.error.code === ErrorCode.resourceNotFound) throw notFound();
    // Mapped by code; an unexpected failure is a 500 that shows nothing (never a 404 that hides it).
    throw httpError(outcome.error.code, outcome.error.message, outcome.error.data);
  })
  .route("/", subagentRoutes)
  .route("/", memoryRoutes)
  .route("/", searchRoutes)
  .route("/", usageRoutes)
  .get("/sessions/:id", async (c) => {
    const { row, role } = await accessibleSession(c.env, callerOf(c), c.req.param("id"), "read");
    return c.json(isAdmin(c.get("principal")) ? sessionInfo(row) : withAccess(sessionInfo(row), row, role));
  });

function notFound() {
  return httpError(ErrorCode.resourceNotFound, "no such session");
}

function segmentView(row: SegmentRow) {
  return {
    hermesSessionId: row.id,
    acpSessionId: row.acpSessionId,
    kind: row.kind,
    parentHermesSessionId: row.parentId,
    rootHermesSessionId: row.rootId,
    status: row.status,
    endReason: row.endReason,
    compressionDepth: row.compressionDepth,
    createdAt: new Date(row.createdAt).toISOString(),
    endedAt: row.endedAt === null ? null : new Date(row.endedAt).toISOString(),
  };
}
