/**
 * REST reads of the session index, for dashboards and scripts. The same tenant
 * scoping as ACP: another tenant's session is a 404, like an unknown one.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { sessionInfo } from "../connection/session-info.js";
import { SessionIndex } from "../db/session-index.js";
import type { Env } from "../env.js";
import { bearerAuth, type AuthVariables } from "./auth.js";

const zListQuery = z.object({ cwd: z.string().min(1).optional(), cursor: z.string().max(512).optional() });

export const rest = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .use(bearerAuth())
  .get("/sessions", async (c) => {
    const query = zListQuery.safeParse(c.req.query());
    if (!query.success) throw new HTTPException(400, { res: Response.json({ error: "invalid query", issues: query.error.issues }, { status: 400 }) });
    try {
      const page = await new SessionIndex(c.env.DB).list(c.get("tenant"), query.data);
      return c.json({ sessions: page.sessions.map(sessionInfo), nextCursor: page.nextCursor });
    } catch (err) {
      if (err instanceof RangeError) throw new HTTPException(400, { res: Response.json({ error: "invalid cursor" }, { status: 400 }) });
      throw err;
    }
  })
  .get("/sessions/:id", async (c) => {
    const row = await new SessionIndex(c.env.DB).get(c.get("tenant"), c.req.param("id"));
    if (!row) throw new HTTPException(404, { res: Response.json({ error: "no such session" }, { status: 404 }) });
    return c.json(sessionInfo(row));
  });
