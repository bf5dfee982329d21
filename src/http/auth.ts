/**
 * Authentication of `/acp` and the tenant REST routes. Editors send
 * `Authorization: Bearer <key>`; browsers, which cannot set headers on a
 * WebSocket, offer the subprotocols `acp` and `hermes-edge-token.<key>`, and
 * only `acp` is echoed back. A refusal is a 401 saying why (missing, unknown,
 * revoked or expired), before any upgrade; an address that keeps failing gets
 * 429 from the rate-limiting binding instead.
 */
import type { MiddlewareHandler } from "hono";
import type { Env } from "../env.js";
import { checkCredential } from "./credentials.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import type { Principal } from "../session/access.js";

export const TOKEN_PROTOCOL_PREFIX = "hermes-edge-token.";
export const ACP_PROTOCOL = "acp";
/** The binding's window (`simple.period` in wrangler.toml), told to clients as Retry-After. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;

export interface AuthVariables {
  tenant: string;
  /** Who in the tenant: the key's user, or none (the tenant's admin, or a viewer link). */
  principal: Principal;
  /** The managed key used, if any (bootstrap tokens have none). */
  keyId: string | undefined;
  /** The subprotocol to echo on the upgrade, if the client offered one we accept. */
  acceptedProtocol: string | undefined;
}

export function bearerAuth(): MiddlewareHandler<{ Bindings: Env; Variables: AuthVariables }> {
  return async function bearerAuthMiddleware(c, next) {
    const offered = (c.req.header("Sec-WebSocket-Protocol") ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    const token = headerToken(c.req.header("Authorization")) ?? protocolToken(offered);
    const check = await checkCredential(token, {
      db: c.env.DB,
      bootstrapTokens: c.env.HERMES_EDGE_TOKENS,
      now: Date.now(),
      waitUntil: (p) => c.executionCtx.waitUntil(p),
    });
    if (!check.ok) {
      await countFailure(c.env, c.req.raw);
      throw httpError(ErrorCode.authRequired, check.message, { reason: check.reason }, {
        headers: { "WWW-Authenticate": 'Bearer realm="hermes-edge"' },
      });
    }
    c.set("tenant", check.tenant);
    c.set("principal", { user: check.user ?? null, link: check.link ?? null });
    c.set("keyId", check.keyId);
    c.set("acceptedProtocol", offered.includes(ACP_PROTOCOL) ? ACP_PROTOCOL : undefined);
    await next();
  };
}

/**
 * Counts a failed authentication of the request's address and throws the 429
 * (-32004) once the address is over the binding's limit. Without the binding there is no limit.
 */
export async function countFailure(env: Pick<Env, "AUTH_FAILURE_LIMITER">, request: Request): Promise<void> {
  if (!env.AUTH_FAILURE_LIMITER) return;
  const { success } = await env.AUTH_FAILURE_LIMITER.limit({ key: `auth-failure:${clientAddress(request)}` });
  if (success) return;
  throw httpError(
    ErrorCode.tooManyFailures,
    "too many failed authentication attempts from this address; try again later",
    { retryAfterSeconds: AUTH_FAILURE_PERIOD_SECONDS },
    { headers: { "Retry-After": String(AUTH_FAILURE_PERIOD_SECONDS) } },
  );
}

/** Cloudflare sets CF-Connecting-IP (a client cannot forge it through the edge); wrangler dev does too. */
export function clientAddress(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "unknown";
}

function headerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

function protocolToken(offered: string[]): string | undefined {
  const entry = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  return entry ? entry.slice(TOKEN_PROTOCOL_PREFIX.length) || undefined : undefined;
}
