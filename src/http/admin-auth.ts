/**
 * Guards `/v1/admin/*` with the secret `HERMES_ADMIN_TOKEN`, compared in
 * constant time: no `Authorization` → 401 (-32000), a wrong token → 403
 * (-32001). Wrong tokens count toward the same per-address failure limit as
 * keys. With no admin token configured, the admin API refuses everyone.
 */
import type { MiddlewareHandler } from "hono";
import type { Env } from "../env.js";
import { secretsEqual } from "../keys/api-key.js";
import { countFailure } from "./auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";

export function adminAuth(): MiddlewareHandler<{ Bindings: Env }> {
  return async function adminAuthMiddleware(c, next) {
    const presented = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!presented) {
      throw httpError(ErrorCode.authRequired, "missing admin token: send Authorization: Bearer <HERMES_ADMIN_TOKEN>", undefined, {
        headers: { "WWW-Authenticate": 'Bearer realm="hermes-edge-admin"' },
      });
    }
    const expected = c.env.HERMES_ADMIN_TOKEN?.trim();
    if (expected && (await secretsEqual(presented, expected))) return next();
    await countFailure(c.env, c.req.raw);
    throw httpError(ErrorCode.forbidden, expected ? "wrong admin token" : "the admin API is disabled: HERMES_ADMIN_TOKEN is not set");
  };
}
