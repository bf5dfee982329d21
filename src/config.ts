/**
 * Parses the raw environment into typed settings. Every setting has a default
 * that works, so a fresh `npm start` needs nothing but a token.
 */
import { upstreamModel, upstreamSettings } from "./agent/providers/upstream-config.js";
import { DEFAULT_MAX_FRAME_BYTES, MCP_CALL_TIMEOUT_MS } from "@hermes-edge/protocol";
import type { Env } from "./env.js";
import { zTenant } from "./tenant/tenant-name.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_MODEL = "gpt-4o-mini";
export { DEFAULT_MAX_FRAME_BYTES };
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_COALESCE_MS = 5;
/** How long a permission request waits for the user before it counts as denied. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 60_000;

export interface ModelSettings {
  baseURL: string;
  apiKey: string | undefined;
  defaultModel: string;
  /** Selectable models; always contains `defaultModel`. */
  models: string[];
  /** From HERMES_CONTEXT_WINDOW; when unset, each model's own window applies. */
  contextWindowOverride: number | undefined;
}

/** Known context windows by model-id prefix; anything else gets `DEFAULT_CONTEXT_WINDOW`. */
const MODEL_WINDOWS: [prefix: string, tokens: number][] = [
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["gpt-4o", 128_000],
  ["claude", 200_000],
  ["gemini", 1_048_576],
];

export function contextWindowFor(model: string, settings: Pick<ModelSettings, "contextWindowOverride">): number {
  if (settings.contextWindowOverride) return settings.contextWindowOverride;
  const id = model.split("/").pop() ?? model;
  return MODEL_WINDOWS.find(([prefix]) => id.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

export function modelSettings(env: Env): ModelSettings {
  const defaultModel = env.HERMES_MODEL?.trim() || DEFAULT_MODEL;
  // Remote upstream ACP agents are models too (`acp:<id>`), listed after the configured ones.
  const listed = [...new Set([...splitList(env.HERMES_MODELS), ...upstreamSettings(env).remote.map((u) => upstreamModel(u.id))])];
  return {
    baseURL: env.OPENAI_BASE_URL?.trim() || DEFAULT_BASE_URL,
    apiKey: env.OPENAI_API_KEY?.trim() || undefined,
    defaultModel,
    models: listed.includes(defaultModel) ? listed : [defaultModel, ...listed],
    contextWindowOverride: positiveInt(env.HERMES_CONTEXT_WINDOW, 0) || undefined,
  };
}

export function maxFrameBytes(env: Env): number {
  return positiveInt(env.HERMES_MAX_FRAME_BYTES, DEFAULT_MAX_FRAME_BYTES);
}

export function coalesceMs(env: Env): number {
  const raw = env.HERMES_COALESCE_MS?.trim();
  if (!raw) return DEFAULT_COALESCE_MS; // Number("") is 0: a blank setting means unset, not "no window"
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_COALESCE_MS;
}

/**
 * `HERMES_EDGE_TOKENS` is `tenant:token,tenant/user:token`; returns token →
 * `tenant` or `tenant/user` (a token with a user belongs to that user).
 * A pair whose tenant is not a valid tenant name (`zTenant`) is left out, with
 * a warning once per setting: that tenant's limits and keys could never be
 * administered.
 */
export function tokenTable(raw: string | undefined): Map<string, string> {
  const table = new Map<string, string>();
  const refused: string[] = [];
  for (const pair of splitList(raw)) {
    const colon = pair.indexOf(":");
    if (colon <= 0 || colon === pair.length - 1) continue;
    const tenant = pair.slice(0, colon).trim();
    // `tenant/user:token` names the token's user; without one it is the tenant's admin.
    const [name, user, ...extra] = tenant.split("/");
    const valid = zTenant.safeParse(name).success && (user === undefined || zTenant.safeParse(user).success) && extra.length === 0;
    if (!valid) refused.push(tenant);
    else table.set(pair.slice(colon + 1).trim(), tenant);
  }
  if (refused.length > 0 && warnedTokens !== raw) {
    warnedTokens = raw;
    console.warn(`HERMES_EDGE_TOKENS: left out the pairs of ${refused.map((t) => JSON.stringify(t)).join(", ")}: a tenant name is letters, digits and . _ @ - (at most 64)`);
  }
  return table;
}

/** The `HERMES_EDGE_TOKENS` value last warned about, so a bad pair is reported once, not per request. */
let warnedTokens: string | undefined;

function splitList(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function permissionTimeoutMs(env: Env): number {
  return positiveInt(env.HERMES_PERMISSION_TIMEOUT_MS, DEFAULT_PERMISSION_TIMEOUT_MS);
}

/** An MCP tool call's timeout without an answer or progress (`mcpCallTimeouts`: 12 times that in all). */
export function mcpCallTimeoutMs(env: Env): number {
  return positiveInt(env.HERMES_MCP_CALL_TIMEOUT_MS, MCP_CALL_TIMEOUT_MS);
}

export const DEFAULT_MAX_SPAWN_DEPTH = 1;
export const MAX_SPAWN_DEPTH_LIMIT = 5;
export const DEFAULT_MAX_CONCURRENT_CHILDREN = 3;
export const MAX_CONCURRENT_CHILDREN_LIMIT = 16;

export interface DelegationSettings {
  /** Levels of sub-agents below a root session; 0 turns delegation off. */
  maxSpawnDepth: number;
  /** Sub-agents of one session running at once; more wait, never fail. */
  maxConcurrentSubagents: number;
  /** What a sub-agent's permission request does: ask the editor through the parent, or be denied. */
  subagentApproval: "ask" | "deny";
}

export function delegationSettings(env: Env): DelegationSettings {
  const depth = Number(env.HERMES_MAX_SPAWN_DEPTH?.trim() || NaN);
  return {
    maxSpawnDepth: Number.isInteger(depth) && depth >= 0 ? Math.min(depth, MAX_SPAWN_DEPTH_LIMIT) : DEFAULT_MAX_SPAWN_DEPTH,
    maxConcurrentSubagents: Math.min(positiveInt(env.HERMES_MAX_CONCURRENT_CHILDREN, DEFAULT_MAX_CONCURRENT_CHILDREN), MAX_CONCURRENT_CHILDREN_LIMIT),
    subagentApproval: env.HERMES_SUBAGENT_APPROVAL?.trim().toLowerCase() === "deny" ? "deny" : "ask",
  };
}
