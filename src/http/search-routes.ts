/**
 * `GET /v1/search?q=&limit=`: the `session_search` tool's results (per session:
 * id, title, cwd, last update, snippet) for the browser client and scripts.
 * Only the caller's tenant's sessions; limit 1–20, default 5.
 */
import { Hono } from "hono";
import * as z from "zod";
import { DEFAULT_SEARCH_LIMIT, SearchIndex } from "../db/search-index.js";
import type { Env } from "../env.js";
import { zSearchLimit, zSearchQuery } from "../tools/session-search.js";
import type { AuthVariables } from "./auth.js";
import { queryOf } from "./validate.js";

const zQuery = z.object({
  q: zSearchQuery,
  limit: z.coerce.number().pipe(zSearchLimit).default(DEFAULT_SEARCH_LIMIT),
});

export const searchRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>().get("/search", async (c) => {
  const query = queryOf(c, zQuery);
  const results = await new SearchIndex(c.env.DB).search(c.get("tenant"), query.q, { limit: query.limit, readableBy: c.get("principal") });
  return c.json({ query: query.q, results });
});
