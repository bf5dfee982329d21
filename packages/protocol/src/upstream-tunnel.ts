/**
 * Proxy-hosted upstream ACP agents: the proxy runs the user's own agents (e.g.
 * `copilot --acp --stdio`), declares them at `initialize` in
 * `clientCapabilities._meta.hermes.upstreams`, and tunnels each JSON-RPC
 * message of their stdio, both ways, as `_hermes/upstream/message`.
 * @module
 */
import * as z from "zod";
import { loose } from "./loose.js";

export const UPSTREAM_MESSAGE = "_hermes/upstream/message";

/** An upstream id: what follows `acp:` in the model's name. */
export const zUpstreamId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64");

export const zDeclaredUpstream = loose({ id: zUpstreamId, name: z.string().min(1).max(200) });
export type DeclaredUpstream = z.infer<typeof zDeclaredUpstream>;

/** `_hermes/upstream/message` params: one JSON-RPC message (request, response or notification) of the upstream's stdio. */
export const zUpstreamMessage = z.object({
  upstreamId: zUpstreamId,
  message: z.looseObject({ jsonrpc: z.literal("2.0") }),
});
export type UpstreamMessage = { upstreamId: string; message: { jsonrpc: "2.0"; [key: string]: unknown } };

const zUpstreamsMeta = loose({ _meta: loose({ hermes: loose({ upstreams: z.array(zDeclaredUpstream).max(32) }) }) });

/** The upstreams a client declared in its capabilities; none when absent or malformed. */
export function declaredUpstreams(clientCapabilities: unknown): DeclaredUpstream[] {
  const parsed = zUpstreamsMeta.safeParse(clientCapabilities);
  return parsed.success ? parsed.data._meta.hermes.upstreams.map(({ id, name }) => ({ id, name })) : [];
}

/** `initialize` params with `upstreams` declared (the proxy's rewrite); other fields are kept. */
export function withDeclaredUpstreams(initializeParams: unknown, upstreams: DeclaredUpstream[]): unknown {
  if (upstreams.length === 0 || typeof initializeParams !== "object" || initializeParams === null || Array.isArray(initializeParams)) return initializeParams;
  const params = initializeParams as Record<string, unknown>;
  const caps = record(params["clientCapabilities"]);
  const meta = record(caps["_meta"]);
  const hermes = record(meta["hermes"]);
  return { ...params, clientCapabilities: { ...caps, _meta: { ...meta, hermes: { ...hermes, upstreams } } } };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
