/**
 * Browsers are a different trust zone. A request that carries `Origin` (a
 * WebSocket upgrade or a REST call made by a page) is served only when that
 * origin is the service's own or matches `HERMES_ALLOWED_ORIGINS`; anything
 * else gets 403 before authentication runs. Requests without `Origin`
 * (editors, the proxy, scripts) pass untouched. Allowed origins get CORS
 * headers and preflight answers; refused ones get none.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Env } from "../env.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";
import { ALLOWED_ORIGINS_VAR, originAllowed, parseAllowedOrigins, type ParsedOrigins } from "./origin-patterns.js";

type BrowserEnv = { Bindings: Env };

/** Answers differ by Origin, so caches must key on it. */
const VARY = { Vary: "Origin" };

/** The variable is read per isolate; parsing it once per distinct value is enough. */
let cached: { raw: string | undefined; parsed: ParsedOrigins } | undefined;

function allowedOrigins(raw: string | undefined): ParsedOrigins {
  if (!cached || cached.raw !== raw) cached = { raw, parsed: parseAllowedOrigins(raw) };
  return cached.parsed;
}

export function originPolicy(): MiddlewareHandler<BrowserEnv> {
  return async function originPolicyMiddleware(c, next) {
    const origin = c.req.header("Origin");
    if (origin === undefined) return next();
    const allowed = allowedOrigins(c.env.HERMES_ALLOWED_ORIGINS);
    // A broken allow-list refuses every browser rather than guessing what was meant.
    if (!allowed.ok) {
      throw httpError(ErrorCode.internalError, allowed.message, { variable: ALLOWED_ORIGINS_VAR }, { status: 500, expose: true, headers: VARY });
    }
    if (!originAllowed(origin, allowed.patterns, new URL(c.req.url).origin)) {
      throw httpError(
        ErrorCode.forbidden,
        `Origin ${origin} is not allowed to use this service: add it to ${ALLOWED_ORIGINS_VAR} ` +
          "(a comma list of origins; * stands for one port or one subdomain label)",
        { origin, variable: ALLOWED_ORIGINS_VAR },
        { headers: VARY },
      );
    }
    await next();
  };
}

/**
 * CORS for origins {@link originPolicy} let through (it runs first, so any
 * Origin that reaches here is allowed). The bearer token travels in
 * `Authorization`, never in cookies, so credentials stay off. WebSocket
 * upgrades are skipped: CORS does not apply to them, and a 101's headers
 * belong to the connection object.
 */
export function corsPolicy(): MiddlewareHandler<BrowserEnv> {
  const headers = cors({
    origin: (origin) => origin || null,
    allowMethods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
    // The Acp-* headers are Streamable HTTP's (POST/GET /acp); a browser client must be able to send and read them.
    allowHeaders: ["Authorization", "Content-Type", "Acp-Connection-Id", "Acp-Session-Id", "Last-Event-ID"],
    exposeHeaders: ["Acp-Connection-Id"],
    maxAge: 600,
  });
  return async function corsPolicyMiddleware(c, next) {
    if (c.req.header("Origin") === undefined || c.req.header("Upgrade")?.toLowerCase() === "websocket") return next();
    return headers(c, next);
  };
}
