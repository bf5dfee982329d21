/**
 * Command-line parsing: `node:util` splits argv, zod validates the values.
 * @module
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { zLogLevel, type LogLevel } from "./log.js";

export type Mode = "proxy" | "check" | "setup" | "version" | "help";

export interface CliOptions {
  readonly mode: Mode;
  readonly url: string | undefined;
  readonly token: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly logLevel: LogLevel;
  /** Seconds without a connection before pending requests fail. */
  readonly giveUpAfterSeconds: number;
  /** Raw `--upstream id=command` flags; `upstream-spec.ts` checks them. */
  readonly upstreams: readonly string[];
}

export const DEFAULT_GIVE_UP_AFTER_SECONDS = 300;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE = `Usage: hermes-edge-proxy [options]

Runs as an ACP agent on stdio and bridges to a hermes-edge service over WebSocket.

Options:
  --url URL               service endpoint (ws://, wss://, http:// or https://; path defaults to /acp)
                          default: $HERMES_EDGE_URL, then the saved config, then ws://127.0.0.1:8787/acp
  --token TOKEN           bearer token; default: $HERMES_EDGE_TOKEN, then the saved config
  --header "Name: value"  extra header on the WebSocket upgrade (repeatable), e.g. for Cloudflare Access
  --log-level LEVEL       error | warn | info | debug (default: info); logs go to stderr only
  --give-up-after SECONDS fail pending requests after this long without a connection (default: 300);
                          the proxy keeps reconnecting in the background
  --upstream ID="COMMAND" run a local ACP agent (e.g. copilot="copilot --acp --stdio") that sessions
                          may use as the model acp:ID (repeatable; also "upstreams" in the saved config)
  --check                 connect, initialize, report whether the service and token work, exit 0 or 1
  --setup                 ask for URL and token on the terminal, verify them, save them
  --version               print the version
  --help                  print this help
`;

/** Handshake headers that `ws` or the token owns; overriding them would break the upgrade or hide the token source. */
const RESERVED_HEADERS = new Set([
  "authorization",
  "host",
  "connection",
  "upgrade",
  "content-length",
  "transfer-encoding",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-extensions",
  "sec-websocket-protocol",
  "sec-websocket-accept",
]);

/** RFC 9110 `token` characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses one `--header "Name: value"`.
 * @throws UsageError when the name is not a valid token, the value contains
 *   control characters, or the header is one the proxy must own.
 */
export function parseHeader(raw: string): [name: string, value: string] {
  const colon = raw.indexOf(":");
  if (colon <= 0) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(raw)}`);
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) throw new UsageError(`--header name ${JSON.stringify(name)} is not a valid HTTP header name`);
  // Header injection guard: CR/LF would start a new header line.
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value must not contain CR, LF or NUL`);
  const lower = name.toLowerCase();
  if (lower === "authorization") throw new UsageError("--header Authorization is not allowed; pass the token with --token or HERMES_EDGE_TOKEN");
  if (RESERVED_HEADERS.has(lower)) throw new UsageError(`--header ${name} is set by the WebSocket handshake and cannot be overridden`);
  return [name, value];
}

const zSeconds = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, "must be a number of seconds")
  .transform(Number)
  .pipe(z.number().min(0).max(365 * 24 * 3600));

const zRawOptions = z.object({
  url: z.string().min(1, "--url must not be empty").optional(),
  token: z.string().min(1, "--token must not be empty").optional(),
  header: z.array(z.string()).default([]),
  upstream: z.array(z.string()).default([]),
  "log-level": zLogLevel.default("info"),
  "give-up-after": zSeconds.optional(),
  check: z.boolean().default(false),
  setup: z.boolean().default(false),
  version: z.boolean().default(false),
  help: z.boolean().default(false),
});

/**
 * Parses argv (without `node` and the script path).
 * @throws UsageError for unknown flags, missing values or invalid values.
 */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: "string" },
        token: { type: "string" },
        header: { type: "string", multiple: true },
        upstream: { type: "string", multiple: true },
        "log-level": { type: "string" },
        "give-up-after": { type: "string" },
        check: { type: "boolean" },
        setup: { type: "boolean" },
        version: { type: "boolean", short: "v" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const parsed = zRawOptions.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0] !== undefined ? `--${String(issue.path[0])}` : "arguments";
    throw new UsageError(`${flag}: ${issue?.message ?? "invalid value"}`);
  }
  const o = parsed.data;
  const modes = [o.check && "check", o.setup && "setup"].filter((m): m is "check" | "setup" => typeof m === "string");
  if (modes.length > 1) throw new UsageError("--check and --setup cannot be combined");
  const mode: Mode = o.help ? "help" : o.version ? "version" : (modes[0] ?? "proxy");
  const headers: Record<string, string> = {};
  for (const raw of o.header) {
    const [name, value] = parseHeader(raw);
    headers[name] = value;
  }
  return {
    mode,
    url: o.url,
    token: o.token,
    headers,
    logLevel: o["log-level"],
    giveUpAfterSeconds: o["give-up-after"] ?? DEFAULT_GIVE_UP_AFTER_SECONDS,
    upstreams: o.upstream,
  };
}
