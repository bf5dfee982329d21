/**
 * Which upstream ACP agents a session may use as its model: remote ones from
 * `HERMES_ACP_UPSTREAMS` (reached over WebSocket), and the ones the proxy
 * declares at `initialize` (run on the user's machine). Each is the model `acp:<id>`.
 */
import * as z from "zod";

export const UPSTREAM_MODEL_PREFIX = "acp:";
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;
const MAX_TIMER_MS = 2_147_483_647;

const zId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-'");

export const zRemoteUpstream = z.object({
  id: zId,
  name: z.string().min(1).optional(),
  url: z.string().regex(/^wss?:\/\/\S+$/, "a ws:// or wss:// URL"),
  token: z.string().min(1).optional(),
});
export type RemoteUpstream = z.infer<typeof zRemoteUpstream> & { name: string };

export interface UpstreamSettings {
  remote: RemoteUpstream[];
  timeoutMs: number;
  /** Why `HERMES_ACP_UPSTREAMS` was ignored, if it was. */
  problem?: string;
}

export function upstreamSettings(env: { HERMES_ACP_UPSTREAMS?: string | undefined; HERMES_ACP_UPSTREAM_TIMEOUT_MS?: string | undefined }): UpstreamSettings {
  const timeout = Number(env.HERMES_ACP_UPSTREAM_TIMEOUT_MS?.trim() || NaN);
  // setTimeout fires at once past 2^31 - 1 ms, so a larger value falls back to the default too.
  const timeoutMs = Number.isInteger(timeout) && timeout > 0 && timeout <= MAX_TIMER_MS ? timeout : DEFAULT_UPSTREAM_TIMEOUT_MS;
  const raw = env.HERMES_ACP_UPSTREAMS?.trim();
  if (!raw) return { remote: [], timeoutMs };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { remote: [], timeoutMs, problem: "HERMES_ACP_UPSTREAMS is not valid JSON" };
  }
  const parsed = z.array(zRemoteUpstream).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { remote: [], timeoutMs, problem: `HERMES_ACP_UPSTREAMS: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
  }
  const ids = new Set<string>();
  const remote = parsed.data.filter((u) => !ids.has(u.id) && ids.add(u.id)).map((u) => ({ ...u, name: u.name ?? u.id }));
  return { remote, timeoutMs };
}

/** `upstreamSettings`, with a malformed `HERMES_ACP_UPSTREAMS` reported in the Worker's log. */
export function upstreamSettingsLogged(env: Parameters<typeof upstreamSettings>[0]): UpstreamSettings {
  const settings = upstreamSettings(env);
  if (settings.problem) console.warn(`${settings.problem}; no remote upstream agents are offered`);
  return settings;
}

export function upstreamModel(id: string): string {
  return `${UPSTREAM_MODEL_PREFIX}${id}`;
}

/** The upstream id of an `acp:<id>` model, or null for an OpenAI-compatible model. */
export function upstreamIdOf(model: string): string | null {
  return model.startsWith(UPSTREAM_MODEL_PREFIX) ? model.slice(UPSTREAM_MODEL_PREFIX.length) : null;
}
