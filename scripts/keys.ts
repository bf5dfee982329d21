/**
 * `npm run keys -- create|list|revoke`: managed API keys through the admin API
 * of the local service (`npm start`) or a deployment (`--url`). The admin
 * token comes from HERMES_ADMIN_TOKEN or, for a local URL only, from the
 * `.dev.vars` in the current directory (so a local token is never sent elsewhere).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { readDevVars } from "./lib/dev-vars.js";
import { cloneProxy, PUBLISHED_PROXY, shellLine } from "./lib/editor-snippets.js";
import { expiresAt } from "./lib/expires.js";
import { defaultServiceUrl, isLoopback, serviceBaseUrl } from "./lib/service-url.js";

const USAGE = `Usage:
  npm run keys -- create --tenant TENANT [--user USER] --label LABEL [--expires 30d|12h|2026-12-31] [--url URL] [--json]
  npm run keys -- list [--tenant TENANT] [--url URL] [--json]
  npm run keys -- revoke KEY_ID [--url URL] [--json]

--user     the key's user (letters, digits and . _ @ -); without one the key is the tenant's admin
--url      the service: ${defaultServiceUrl()} (npm start) by default; https://…, or the wss://…/acp URL editors use
Admin token: HERMES_ADMIN_TOKEN, or for a local --url the HERMES_ADMIN_TOKEN in ./.dev.vars`;

class CliError extends Error {}

interface KeyView {
  id: string;
  tenant: string;
  /** Null: the tenant's admin key. */
  user: string | null;
  label: string;
  status: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

const root = fileURLToPath(new URL("..", import.meta.url));

function adminToken(base: URL): string {
  const fromEnv = process.env.HERMES_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  if (isLoopback(base)) {
    const local = readDevVars(join(process.cwd(), ".dev.vars"))?.HERMES_ADMIN_TOKEN;
    if (local) return local;
    throw new CliError("no admin token: .dev.vars has no HERMES_ADMIN_TOKEN (npm start adds one) and HERMES_ADMIN_TOKEN is not set");
  }
  throw new CliError(`no admin token for ${base.origin}: set HERMES_ADMIN_TOKEN (npm run deploy printed it)`);
}

async function api(base: URL, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${base.href.replace(/\/$/, "")}/v1/admin${path}`;
  const token = adminToken(base);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    const hint = isLoopback(base) ? " (is `npm start` running?)" : "";
    throw new CliError(`cannot reach ${base.origin}${hint}: ${cause}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${method} ${url} answered ${res.status} with something that is not JSON: is ${base.origin} a hermes-edge service?`);
  }
  if (!res.ok) throw new CliError(describeError(res.status, json));
  return json;
}

function describeError(status: number, json: unknown): string {
  const error = (json as { error?: { code?: number; message?: string; data?: unknown } }).error;
  const issues = Array.isArray(error?.data)
    ? (error.data as { path?: unknown[]; message?: string }[]).map((i) => `\n  ${(i.path ?? []).join(".") || "(body)"}: ${i.message}`).join("")
    : "";
  return `HTTP ${status}: ${error?.message ?? "request failed"}${issues}`;
}

function table(keys: KeyView[]): string {
  const rows = [["ID", "TENANT", "USER", "LABEL", "STATUS", "CREATED", "LAST USED", "EXPIRES"]];
  const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "-");
  for (const k of keys) rows.push([k.id, k.tenant, k.user ?? "(admin)", k.label, k.status, day(k.createdAt), day(k.lastUsedAt), day(k.expiresAt)]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

function acpUrl(base: URL): string {
  const ws = new URL(base.href);
  ws.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  return `${ws.href.replace(/\/$/, "")}/acp`;
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      tenant: { type: "string" },
      user: { type: "string" },
      label: { type: "string" },
      expires: { type: "string" },
      url: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    if (!values.help) throw new CliError("say create, list or revoke");
    return;
  }
  const base = serviceBaseUrl(values.url ?? defaultServiceUrl());
  const print = (human: string, data: unknown) => process.stdout.write(values.json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);

  if (command === "create") {
    if (!values.tenant || !values.label) throw new CliError("create needs --tenant and --label");
    if (rest.length) throw new CliError(`unexpected argument: ${rest[0]}`);
    const body = { tenant: values.tenant, ...(values.user ? { user: values.user } : {}), label: values.label, ...(values.expires ? { expiresAt: expiresAt(values.expires, Date.now()) } : {}) };
    const created = (await api(base, "POST", "/keys", body)) as { id: string; key: string; tenant: string; user: string | null; label: string; expiresAt: string | null };
    print(
      [
        `Created ${created.id} for ${created.user ? `user "${created.user}" of ` : ""}tenant "${created.tenant}" (${created.label}), ${created.expiresAt ? `expires ${created.expiresAt}` : "no expiry"}.`,
        "",
        `  ${created.key}`,
        "",
        "This is the only time the key is shown. On its owner's machine:",
        `  ${shellLine(cloneProxy(root), ["--setup"])}    (from a clone; or ${shellLine(PUBLISHED_PROXY, ["--setup"])})`,
        `  URL: ${acpUrl(base)}   token: the key above`,
      ].join("\n"),
      created,
    );
    return;
  }
  if (command === "list") {
    if (rest.length) throw new CliError(`unexpected argument: ${rest[0]}`);
    const query = values.tenant ? `?tenant=${encodeURIComponent(values.tenant)}` : "";
    const { keys } = (await api(base, "GET", `/keys${query}`)) as { keys: KeyView[] };
    print(keys.length ? table(keys) : "No keys.", { keys });
    return;
  }
  if (command === "revoke") {
    const [id, ...extra] = rest;
    if (!id || extra.length) throw new CliError("revoke takes exactly one key id (see npm run keys -- list)");
    const revoked = (await api(base, "DELETE", `/keys/${encodeURIComponent(id)}`)) as KeyView;
    print(`Revoked ${revoked.id} (tenant "${revoked.tenant}", ${revoked.label}). New connections with it are refused; open ones close within 60 s.`, revoked);
    return;
  }
  throw new CliError(`unknown command "${command}": say create, list or revoke`);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const usage = err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS");
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}${usage ? `\n\n${USAGE}` : ""}\n`);
  process.exitCode = 1;
}
