/**
 * `HERMES_ALLOWED_ORIGINS`: which browser origins may call the service. A comma
 * list of origins in which `*` may stand for the whole port or for one
 * subdomain label: `https://ide.example.com`, `https://*.example.com`,
 * `http://localhost:*`. Pure, so it is tested in Node.
 * @module
 */
import * as z from "zod";

export const ALLOWED_ORIGINS_VAR = "HERMES_ALLOWED_ORIGINS";

/** Used when the variable is unset or empty; the service's own origin is always allowed on top. */
export const DEFAULT_ALLOWED_ORIGINS = ["http://localhost:*", "http://127.0.0.1:*"] as const;

export interface OriginPattern {
  readonly scheme: string;
  /** Host labels, lower case; `*` matches exactly one label. A bracketed IPv6 host is one label. */
  readonly labels: readonly string[];
  /** `*` for any port, else the port the origin must use (the scheme's default when none is written). */
  readonly port: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: "80", https: "443", ws: "80", wss: "443" };

const LABEL = "(?:\\*|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)";
const PATTERN = new RegExp(`^([a-z][a-z0-9+.-]*)://(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\*|\\d{1,5}))?$`);

const zOriginPattern = z
  .string()
  .transform((text) => text.trim().toLowerCase())
  .pipe(
    z.string().regex(PATTERN, {
      error: (issue) => `"${String(issue.input)}" is not an origin pattern such as https://ide.example.com, https://*.example.com or http://localhost:*`,
    }),
  )
  .transform((text): OriginPattern => {
    const [, scheme = "", host = "", port] = PATTERN.exec(text) ?? [];
    return { scheme, labels: host.startsWith("[") ? [host] : host.split("."), port: port ?? DEFAULT_PORTS[scheme] ?? "" };
  });

const zOriginList = z
  .string()
  .transform((raw) => raw.split(",").map((entry) => entry.trim()).filter(Boolean))
  .pipe(z.array(zOriginPattern));

export type ParsedOrigins = { ok: true; patterns: OriginPattern[] } | { ok: false; message: string };

/** Parses the variable's value; unset or blank means the defaults. */
export function parseAllowedOrigins(raw: string | undefined): ParsedOrigins {
  const text = raw?.trim() ? raw : DEFAULT_ALLOWED_ORIGINS.join(",");
  const parsed = zOriginList.safeParse(text);
  if (parsed.success) return { ok: true, patterns: parsed.data };
  return { ok: false, message: `${ALLOWED_ORIGINS_VAR}: ${parsed.error.issues.map((i) => i.message).join("; ")}` };
}

/**
 * Whether `origin` (an `Origin` header value) matches one of `patterns` or is
 * `selfOrigin`. `null` (sandboxed frames, `file:` pages) and anything that is
 * not a plain origin never match.
 */
export function originAllowed(origin: string, patterns: readonly OriginPattern[], selfOrigin: string): boolean {
  const parsed = parseOrigin(origin);
  if (!parsed) return false;
  if (origin === selfOrigin) return true;
  return patterns.some((pattern) => matches(pattern, parsed));
}

function parseOrigin(origin: string): { scheme: string; labels: string[]; port: string } | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  // An Origin header is scheme://host[:port] and nothing more.
  if (url.origin === "null" || `${url.protocol}//${url.host}` !== origin.toLowerCase()) return undefined;
  const scheme = url.protocol.slice(0, -1);
  const host = url.hostname;
  return { scheme, labels: host.startsWith("[") ? [host] : host.split("."), port: url.port || (DEFAULT_PORTS[scheme] ?? "") };
}

function matches(pattern: OriginPattern, origin: { scheme: string; labels: string[]; port: string }): boolean {
  if (pattern.scheme !== origin.scheme) return false;
  if (pattern.port !== "*" && pattern.port !== origin.port) return false;
  if (pattern.labels.length !== origin.labels.length) return false;
  return pattern.labels.every((label, i) => label === "*" || label === origin.labels[i]);
}
