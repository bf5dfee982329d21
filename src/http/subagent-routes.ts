/**
 * REST for a session's sub-agents: list them with their status, interrupt one,
 * pause or resume new spawns. Tenant-scoped like every read: another tenant's
 * session is a 404, exactly like an unknown one.
 */
import { Hono } from "hono";
import type { SessionRow } from "../../schema/sessions.js";
import { zSessionId } from "../acp/params.js";
import { SessionIndex } from "../db/session-index.js";
import type { SubagentCommand, SubagentControlResult } from "../delegate/subagent-spec.js";
import type { RpcOutcome } from "../durable/rpc-outcome.js";
import type { Env } from "../env.js";
import type { AuthVariables } from "./auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import { accessibleSession, ownedSessionObject, type Caller } from "./owned-session.js";
import { callerOf } from "./share-routes.js";

export const subagentRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .get("/sessions/:id/subagents", async (c) => {
    const tenant = c.get("tenant");
    const id = c.req.param("id");
    const index = new SessionIndex(c.env.DB);
    await accessibleSession(c.env, callerOf(c), id, "read");
    const children = await index.children(tenant, id);
    return c.json({ sessionId: id, subagents: children.map(subagentInfo) });
  })
  .post("/sessions/:id/subagents/pause", (c) => control(c.env, callerOf(c), c.req.param("id"), { action: "pause" }))
  .post("/sessions/:id/subagents/resume", (c) => control(c.env, callerOf(c), c.req.param("id"), { action: "resume" }))
  .post("/sessions/:id/subagents/:subagentId/interrupt", (c) =>
    control(c.env, callerOf(c), c.req.param("id"), { action: "interrupt", subagentId: c.req.param("subagentId") }),
  );

/** A sub-agent row: its status is how its task ended, or `running` until then. */
export function subagentInfo(row: SessionRow) {
  return {
    sessionId: row.id,
    title: row.title,
    status: row.endReason ?? "running",
    model: row.model,
    mode: row.mode,
    cwd: row.cwd,
    parentId: row.parentId,
    rootId: row.rootId,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

async function control(env: Env, caller: Caller, sessionId: string, command: SubagentCommand): Promise<Response> {
  const tenant = caller.tenant;
  if ("subagentId" in command && !zSessionId.safeParse(command.subagentId).success) throw notFound("no running sub-agent with that id in this session or under it");
  const session = await ownedSessionObject(env, caller, sessionId, "drive");
  // RPC typing drops the error branch (its `data` is unknown); the value is the plain outcome.
  const outcome = (await session.subagents(tenant, command)) as RpcOutcome<SubagentControlResult>;
  if (outcome.ok) return Response.json(outcome.result);
  const detail = (outcome.error.data as { detail?: string } | undefined)?.detail ?? outcome.error.message;
  if (outcome.error.code === ErrorCode.resourceNotFound) throw notFound(detail);
  // Mapped by code (a refused command is a 400); anything unexpected is a 500 that shows nothing.
  throw httpError(outcome.error.code, outcome.error.message, outcome.error.data);
}

function notFound(message: string) {
  return httpError(ErrorCode.resourceNotFound, message);
}
