/**
 * `GET /v1/memory?cwd=` → `{ cwd, entries, characters }`; `PUT /v1/memory?cwd=`
 * with `{ entries }` replaces the project's memory (what the `memory` tool
 * edits), for the browser client and scripts. Scoped to the caller's tenant.
 */
import { Hono } from "hono";
import * as z from "zod";
import { zAbsolutePath } from "../acp/params.js";
import { MemoryConflictError, MemoryStore } from "../db/memory-store.js";
import type { Env } from "../env.js";
import { memoryCharacters, zMemoryEntries } from "../tools/memory-entries.js";
import type { AuthVariables } from "./auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import { jsonBody, queryOf } from "./validate.js";

const zQuery = z.object({ cwd: zAbsolutePath });
const zBody = z.strictObject({ entries: zMemoryEntries });

const view = (cwd: string, entries: string[]) => ({ cwd, entries, characters: memoryCharacters(entries) });

export const memoryRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .get("/memory", async (c) => {
    const { cwd } = queryOf(c, zQuery);
    const { entries } = await new MemoryStore(c.env.DB).get(c.get("tenant"), cwd);
    return c.json(view(cwd, entries));
  })
  .put("/memory", async (c) => {
    const { cwd } = queryOf(c, zQuery);
    const body = await jsonBody(c, zBody);
    try {
      const entries = await new MemoryStore(c.env.DB).replace(c.get("tenant"), cwd, body.entries);
      return c.json(view(cwd, entries));
    } catch (err) {
      if (err instanceof MemoryConflictError) throw httpError(ErrorCode.conflict, err.message);
      throw err;
    }
  });
