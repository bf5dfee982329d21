/**
 * Bearer-token authentication. Editors send `Authorization: Bearer <token>`;
 * browsers, which cannot set headers on a WebSocket, offer the subprotocols
 * `acp` and `hermes-edge-token.<token>`, and only `acp` is echoed back.
 */
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { tokenTable } from "../config.js";
import type { Env } from "../env.js";

export const TOKEN_PROTOCOL_PREFIX = "hermes-edge-token.";
export const ACP_PROTOCOL = "acp";

export interface AuthVariables {
  tenant: string;
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
    const tenant = token ? tokenTable(c.env.HERMES_EDGE_TOKENS).get(token) : undefined;
    if (!tenant) {
      const message = token ? "unknown token" : "missing token: send Authorization: Bearer <token>";
      throw new HTTPException(401, {
        res: Response.json(
          { error: "unauthorized", message },
          { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="hermes-edge"' } },
        ),
      });
    }
    c.set("tenant", tenant);
    c.set("acceptedProtocol", offered.includes(ACP_PROTOCOL) ? ACP_PROTOCOL : undefined);
    await next();
  };
}

function headerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

function protocolToken(offered: string[]): string | undefined {
  const entry = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  return entry ? entry.slice(TOKEN_PROTOCOL_PREFIX.length) || undefined : undefined;
}
