/**
 * The Worker entry: authentication, routing and nothing else. `/acp` upgrades
 * and Streamable HTTP requests are handed to their connection object; it never
 * parses JSON-RPC itself.
 */
import { Hono } from "hono";
import { AGENT_NAME, AGENT_VERSION } from "./acp/capabilities.js";
import { CONNECTION_ID_HEADER, PROTOCOL_HEADER, TENANT_HEADER } from "./connection/connection.js";
import { PRINCIPAL_HEADER, principalHeader } from "./connection/principal-header.js";
import * as z from "zod";
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

const zConnectionId = z.string().regex(/^[0-9a-f]{64}$/);

const app = new Hono<{ Bindings: Env; Variables: AuthVariables }>();

// Browsers first: a foreign Origin is refused before anything else runs. (The
// web client at / and /client.js are static assets, served before the Worker.)
app.use("*", originPolicy(), corsPolicy());

app.get("/health", (c) => c.json({ ok: true, name: AGENT_NAME, version: AGENT_VERSION }));

// The ACP registry manifest, so a registry or an editor can discover how to launch the proxy.
app.get("/.well-known/acp/agent.json", (c) => c.json(registryManifest));

app.get("/acp", bearerAuth(), async (c) => {
  if (c.req.header("Upgrade")?.toLowerCase() === "websocket") {
    return forward(c.env, c.env.CONNECTION.newUniqueId(), c.req.raw, c.var);
  }
  if (!(c.req.header("Accept") ?? "").includes("text/event-stream")) {
    throw httpError(ErrorCode.invalidRequest, "GET /acp must be a WebSocket upgrade (Upgrade: websocket) or accept text/event-stream", undefined, {
      status: 426,
      headers: { Upgrade: "websocket" },
    });
  }
  return forward(c.env, knownConnection(c.env, c.req.header(CONNECTION_ID_HEADER)), c.req.raw, c.var);
});

// Streamable HTTP: a POST without Acp-Connection-Id starts a connection (the object checks it is initialize).
app.post("/acp", bearerAuth(), async (c) => {
  const named = c.req.header(CONNECTION_ID_HEADER);
  const id = named === undefined ? c.env.CONNECTION.newUniqueId() : knownConnection(c.env, named);
  return forward(c.env, id, c.req.raw, c.var);
});

app.delete("/acp", bearerAuth(), async (c) => forward(c.env, knownConnection(c.env, c.req.header(CONNECTION_ID_HEADER)), c.req.raw, c.var));

// Before `/v1`: the admin API has its own credential, not the tenant bearer auth.
app.route("/v1/admin", adminRoutes);
app.route("/v1", rest);

app.notFound((c) => httpError(ErrorCode.resourceNotFound, `no route for ${c.req.method} ${c.req.path}`).getResponse());

app.onError(onError);

/** An `Acp-Connection-Id` the client sent; one that is not an object id gets the same 404 as an unknown one. */
function knownConnection(env: Env, header: string | undefined): DurableObjectId {
  const parsed = zConnectionId.safeParse(header);
  if (!parsed.success) {
    if (header === undefined) throw httpError(ErrorCode.invalidRequest, "Acp-Connection-Id is required: POST initialize first");
    throw httpError(ErrorCode.resourceNotFound, "unknown Acp-Connection-Id: initialize a new connection");
  }
  try {
    return env.CONNECTION.idFromString(parsed.data);
  } catch {
    throw httpError(ErrorCode.resourceNotFound, "unknown Acp-Connection-Id: initialize a new connection");
  }
}

/** To the connection object, with what authentication found as internal headers (never the client's copies). */
function forward(env: Env, id: DurableObjectId, raw: Request, vars: AuthVariables): Promise<Response> {
  const headers = new Headers(raw.headers);
  headers.set(TENANT_HEADER, vars.tenant);
  headers.delete(PROTOCOL_HEADER);
  headers.set(PRINCIPAL_HEADER, principalHeader(vars.principal));
  headers.delete(KEY_ID_HEADER);
  headers.delete(LINK_ID_HEADER);
  if (vars.acceptedProtocol) headers.set(PROTOCOL_HEADER, vars.acceptedProtocol);
  if (vars.keyId) headers.set(KEY_ID_HEADER, vars.keyId);
  if (vars.principal.link) headers.set(LINK_ID_HEADER, vars.principal.link.id);
  const body = raw.method === "POST" ? raw.body : null;
  return env.CONNECTION.get(id).fetch(new Request(raw.url, { method: raw.method, headers, body }));
}

export default app satisfies ExportedHandler<Env>;
