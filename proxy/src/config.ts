/**
 * Where the service URL and token come from: `--url`/`--token`, then
 * `HERMES_EDGE_URL`/`HERMES_EDGE_TOKEN`, then the saved per-user config, then
 * the local `wrangler dev` default for the URL. The saved config lives outside
 * the package (XDG config dir), so upgrading the package never loses it.
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { z } from "zod";

export const DEFAULT_URL = "ws://127.0.0.1:8787/acp";

export type ValueSource = "flag" | "env" | "config" | "default" | "none";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const zSavedConfig = z.looseObject({
  url: z.string().min(1).optional(),
  token: z.string().min(1).optional(),
});
export type SavedConfig = z.infer<typeof zSavedConfig>;

export interface ResolvedConfig {
  readonly url: string;
  readonly urlSource: ValueSource;
  readonly token: string | undefined;
  readonly tokenSource: ValueSource;
  readonly configPath: string;
}

/** `$XDG_CONFIG_HOME/hermes-edge/config.json`, else `~/.config/hermes-edge/config.json`. */
export function configPath(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const xdg = env["XDG_CONFIG_HOME"];
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, ".config");
  return join(base, "hermes-edge", "config.json");
}

/**
 * Turns what a user may paste into the WebSocket URL to dial: http(s) becomes
 * ws(s), and a bare host gets the `/acp` path.
 * @throws ConfigError when it is not an absolute ws/wss/http/https URL.
 */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${JSON.stringify(raw)} is not a valid URL (expected e.g. wss://hermes-edge.example.workers.dev/acp)`);
  }
  const schemes: Record<string, string> = { "ws:": "ws:", "wss:": "wss:", "http:": "ws:", "https:": "wss:" };
  const scheme = schemes[url.protocol];
  if (!scheme) throw new ConfigError(`${JSON.stringify(raw)} must use ws://, wss://, http:// or https://`);
  url.protocol = scheme;
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/acp";
  url.hash = "";
  return url.toString();
}

/** The `/health` URL on the same host as the ACP endpoint. */
export function healthUrl(wsUrl: string): string {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = "/health";
  url.search = "";
  return url.toString();
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** Applies the precedence flag > env > saved config > default. Pure. */
export function resolveConfig(input: {
  readonly flags: { readonly url?: string | undefined; readonly token?: string | undefined };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly saved: SavedConfig | undefined;
  readonly configPath: string;
}): ResolvedConfig {
  const { flags, env, saved } = input;
  const urlCandidates: Array<[ValueSource, string | undefined]> = [
    ["flag", nonEmpty(flags.url)],
    ["env", nonEmpty(env["HERMES_EDGE_URL"])],
    ["config", nonEmpty(saved?.url)],
    ["default", DEFAULT_URL],
  ];
  const tokenCandidates: Array<[ValueSource, string | undefined]> = [
    ["flag", nonEmpty(flags.token)],
    ["env", nonEmpty(env["HERMES_EDGE_TOKEN"])],
    ["config", nonEmpty(saved?.token)],
  ];
  const [urlSource, rawUrl] = urlCandidates.find(([, v]) => v !== undefined) ?? ["default", DEFAULT_URL];
  const token = tokenCandidates.find(([, v]) => v !== undefined);
  let url: string;
  try {
    url = normalizeUrl(rawUrl ?? DEFAULT_URL);
  } catch (err) {
    const where = { flag: "--url", env: "HERMES_EDGE_URL", config: input.configPath, default: "default", none: "" }[urlSource];
    throw new ConfigError(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    url,
    urlSource,
    token: token?.[1],
    tokenSource: token ? token[0] : "none",
    configPath: input.configPath,
  };
}

/** Names a token's origin for messages, never the token itself. */
export function describeTokenSource(source: ValueSource, path: string): string {
  switch (source) {
    case "flag":
      return "the --token flag";
    case "env":
      return "the HERMES_EDGE_TOKEN environment variable";
    case "config":
      return `the saved config ${path}`;
    default:
      return "no token (none given by --token, HERMES_EDGE_TOKEN or the saved config)";
  }
}

/**
 * Reads the saved config. A missing file is not an error.
 * @throws ConfigError when the file exists but is not valid.
 */
export function readSavedConfig(path: string): SavedConfig | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${path} is not valid JSON; fix it, delete it, or run hermes-edge-proxy --setup`);
  }
  const parsed = zSavedConfig.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${path}: ${issue ? `${issue.path.join(".") || "value"}: ${issue.message}` : "invalid"}; run hermes-edge-proxy --setup`);
  }
  return parsed.data;
}

/**
 * `logout`: removes the saved token (the URL stays, so `--setup` offers it
 * again). Returns whether there was a token to remove.
 * @throws ConfigError when the file exists but cannot be read or written.
 */
export function forgetSavedToken(path: string): boolean {
  const saved = readSavedConfig(path);
  if (saved?.token === undefined) return false;
  const { token: _forgotten, ...rest } = saved;
  try {
    writeSavedConfig(path, rest);
  } catch (err) {
    throw new ConfigError(`cannot rewrite ${path} without the token: ${err instanceof Error ? err.message : String(err)}`);
  }
  return true;
}

/**
 * `--setup`: saves the URL and token, keeping every other key of the saved
 * file ("upstreams", ...). An unreadable file is replaced: `--setup` is what
 * its error message tells the user to run.
 */
export function saveUrlAndToken(path: string, url: string, token: string | undefined): void {
  let saved: SavedConfig = {};
  try {
    saved = readSavedConfig(path) ?? {};
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
  }
  const { token: _old, ...rest } = saved;
  writeSavedConfig(path, { ...rest, url, ...(token !== undefined ? { token } : {}) });
}

/**
 * Saves the config with the token readable by the user only: directory 0700,
 * file 0600, written to a temporary file and renamed so a crash never leaves
 * a half-written (or briefly world-readable) file.
 */
export function writeSavedConfig(path: string, config: SavedConfig): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(zSavedConfig.parse(config), null, 2) + "\n", { mode: 0o600 });
  // The mode given to writeFileSync is masked by the umask and ignored for an existing file.
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
