/**
 * The Worker entry: authentication, routing and nothing else. `/acp` upgrades
 * are handed to a fresh connection object; it never parses JSON-RPC itself.
 */
import { Hono } from "hono";
import { AGENT_NAME, AGENT_VERSION } from "./acp/capabilities.js";
import { PROTOCOL_HEADER, TENANT_HEADER } from "./connection/connection.js";
import { PRINCIPAL_HEADER, principalHeader } from "./connection/principal-header.js";
import type { Env } from "./env.js";
import { adminRoutes } from "./http/admin-routes.js";
import { bearerAuth, type AuthVariables } from "./http/auth.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError, onError } from "./http/http-error.js";
import { corsPolicy, originPolicy } from "./http/origin-policy.js";
import { rest } from "./http/rest.js";
import { KEY_ID_HEADER, LINK_ID_HEADER } from "./keys/key-watch.js";
import registryManifest from "../registry/agent.json";

export { ConnectionObject } from "./durable/connection-object.js";
export { SessionObject } from "./durable/session-object.js";
export { TenantObject } from "./durable/tenant-object.js";

const app = new Hono<{ Bindings: Env; Variables: AuthVariables }>();

// Browsers first: a foreign Origin is refused before anything else runs. (The
// web client at / and /client.js are static assets, served before the Worker.)
app.use("*", originPolicy(), corsPolicy());

app.get("/health", (c) => c.json({ ok: true, name: AGENT_NAME, version: AGENT_VERSION }));

// The ACP registry manifest, so a registry or an editor can discover how to launch the proxy.
app.get("/.well-known/acp/agent.json", (c) => c.json(registryManifest));

app.get("/acp", bearerAuth(), async (c) => {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    throw httpError(ErrorCode.invalidRequest, "GET /acp must be a WebSocket upgrade (Upgrade: websocket)", undefined, {
      status: 426,
      headers: { Upgrade: "websocket" },
    });
  }
  const stub = c.env.CONNECTION.get(c.env.CONNECTION.newUniqueId());
  const headers = new Headers(c.req.raw.headers);
  headers.set(TENANT_HEADER, c.get("tenant"));
  headers.delete(PROTOCOL_HEADER);
  headers.set(PRINCIPAL_HEADER, principalHeader(c.get("principal")));
  headers.delete(KEY_ID_HEADER);
  headers.delete(LINK_ID_HEADER);
  const accepted = c.get("acceptedProtocol");
  if (accepted) headers.set(PROTOCOL_HEADER, accepted);
  const keyId = c.get("keyId");
  if (keyId) headers.set(KEY_ID_HEADER, keyId);
  const link = c.get("principal").link;
  if (link) headers.set(LINK_ID_HEADER, link.id);
  return stub.fetch(new Request(c.req.raw.url, { method: "GET", headers }));
});

// Before `/v1`: the admin API has its own credential, not the tenant bearer auth.
app.route("/v1/admin", adminRoutes);
app.route("/v1", rest);

app.notFound((c) => httpError(ErrorCode.resourceNotFound, `no route for ${c.req.method} ${c.req.path}`).getResponse());

app.onError(onError);

export default app satisfies ExportedHandler<Env>;
