/**
 * `npm run deploy`: from a clone to a deployed Worker, and safe to run again.
 *
 * 1. `wrangler whoami`: stop with how to log in if not logged in.
 * 2. The D1 database: while wrangler.toml holds the placeholder id, find the
 *    database by name or create it, and write its id into wrangler.toml.
 * 3. Apply the migrations remotely.
 * 4. Set the secrets that are missing: OPENAI_API_KEY (environment, piped
 *    stdin or a hidden prompt) and HERMES_ADMIN_TOKEN (environment or
 *    generated, shown once). Existing secrets are kept unless
 *    `--rotate-admin-token`. Values reach wrangler on its stdin, never argv.
 * 5. `wrangler deploy`, then print the `wss://…/acp` URL and the next steps.
 *
 * `--dry-run` changes nothing: it prints every command a deploy runs, builds
 * the bundle with `wrangler deploy --dry-run --outdir`, reports its gzip size
 * and fails above `--max-gzip-bytes` (default 3 MiB, the free plan's limit).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_MAX_GZIP_BYTES, formatBytes, measureBundle } from "./lib/bundle-size.js";
import { randomSecret } from "./lib/dev-vars.js";
import { cloneProxy, indent, PUBLISHED_PROXY, shellLine, zedSnippet } from "./lib/editor-snippets.js";
import { readSecret } from "./lib/secret-input.js";
import { formatCommand, jsonOutput, runWrangler, type WranglerOptions, type WranglerResult } from "./lib/wrangler-cli.js";
import { accountId, createdDatabaseId, deployedUrls, PLACEHOLDER_DATABASE_ID, readD1Config, writeDatabaseId } from "./lib/wrangler-config.js";

const USAGE = `Usage: npm run deploy -- [--dry-run] [--rotate-admin-token] [--max-gzip-bytes N]

  --dry-run              print the commands a deploy runs, build the bundle, check its size; change nothing
  --rotate-admin-token   replace HERMES_ADMIN_TOKEN even if it is set (the new one is shown once)
  --max-gzip-bytes N     fail the dry run when the gzipped bundle is larger (default ${DEFAULT_MAX_GZIP_BYTES}, 3 MiB)

Secrets never go on the command line. OPENAI_API_KEY comes from the environment,
from stdin (printf %s "$KEY" | npm run deploy) or from a hidden prompt.
HERMES_ADMIN_TOKEN comes from the environment or is generated.
CI: set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID) instead of \`wrangler login\`.`;

const COMMANDS = {
  whoami: () => ["whoami", "--json"],
  listDatabases: () => ["d1", "list", "--json"],
  createDatabase: (name: string) => ["d1", "create", name],
  applyMigrations: (name: string) => ["d1", "migrations", "apply", name, "--remote"],
  listSecrets: () => ["secret", "list", "--format", "json"],
  putSecret: (name: string) => ["secret", "put", name],
  deploy: () => ["deploy"],
  bundle: (outdir: string) => ["deploy", "--dry-run", "--outdir", outdir],
};

class DeployError extends Error {}

interface Flags {
  dryRun: boolean;
  rotateAdminToken: boolean;
  maxGzipBytes: number;
}

const project = process.cwd(); // npm runs scripts in the package root
const root = fileURLToPath(new URL("..", import.meta.url));
const tomlPath = join(project, "wrangler.toml");
const say = (line = "") => process.stderr.write(`${line}\n`);

function parseFlags(argv: string[]): Flags | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      "dry-run": { type: "boolean", default: false },
      "rotate-admin-token": { type: "boolean", default: false },
      "max-gzip-bytes": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return "help";
  const max = values["max-gzip-bytes"] === undefined ? DEFAULT_MAX_GZIP_BYTES : Number(values["max-gzip-bytes"]);
  if (!Number.isInteger(max) || max <= 0) throw new DeployError(`--max-gzip-bytes must be a positive whole number of bytes, got ${values["max-gzip-bytes"]}`);
  return { dryRun: values["dry-run"], rotateAdminToken: values["rotate-admin-token"], maxGzipBytes: max };
}

async function wrangler(args: string[], options: Omit<WranglerOptions, "cwd"> = {}): Promise<WranglerResult> {
  say(`→ ${formatCommand(args)}`);
  return runWrangler(args, root, { cwd: project, ...options });
}

function failed(args: string[], result: WranglerResult): DeployError {
  const output = `${result.stdout}${result.stderr}`.trim().split("\n").slice(-15).join("\n");
  return new DeployError(`${formatCommand(args)} failed (exit ${result.code}):\n${output}`);
}

async function checkLogin(): Promise<void> {
  const result = await wrangler(COMMANDS.whoami());
  const who = jsonOutput(result.stdout) as { loggedIn?: boolean; email?: string; accounts?: { id: string; name: string }[] } | undefined;
  if (!who?.loggedIn) {
    throw new DeployError(
      [
        "You are not logged in to Cloudflare.",
        "  On this machine: npx wrangler login        (opens a browser), then run npm run deploy again",
        "  In CI:           set CLOUDFLARE_API_TOKEN (a token with Workers and D1 edit rights) and CLOUDFLARE_ACCOUNT_ID",
      ].join("\n"),
    );
  }
  const accounts = who.accounts ?? [];
  say(`  logged in${who.email ? ` as ${who.email}` : ""}${accounts.length === 1 ? `, account ${accounts[0]!.name}` : ""}`);
  if (accounts.length > 1 && !process.env.CLOUDFLARE_ACCOUNT_ID && !accountId(readFileSync(tomlPath, "utf8"))) {
    const list = accounts.map((a) => `  ${a.id}  ${a.name}`).join("\n");
    throw new DeployError(`Your login has ${accounts.length} accounts; say which one with CLOUDFLARE_ACCOUNT_ID=<id>:\n${list}`);
  }
}

/** The database's name, created (or found) and written into wrangler.toml if it still has the placeholder id. */
async function ensureDatabase(): Promise<string> {
  const toml = readFileSync(tomlPath, "utf8");
  const d1 = readD1Config(toml);
  if (d1.id !== PLACEHOLDER_DATABASE_ID) {
    say(`  D1 database ${d1.name}: ${d1.id} (from wrangler.toml)`);
    return d1.name;
  }
  const listed = await wrangler(COMMANDS.listDatabases());
  if (listed.code !== 0) throw failed(COMMANDS.listDatabases(), listed);
  const existing = ((jsonOutput(listed.stdout) as { uuid: string; name: string }[] | undefined) ?? []).find((db) => db.name === d1.name);
  let id = existing?.uuid;
  if (id) say(`  D1 database ${d1.name} exists: ${id}`);
  else {
    const created = await wrangler(COMMANDS.createDatabase(d1.name));
    if (created.code !== 0) throw failed(COMMANDS.createDatabase(d1.name), created);
    id = createdDatabaseId(created.stdout);
    if (!id) throw new DeployError(`could not find the new database's id in the output of ${formatCommand(COMMANDS.createDatabase(d1.name))}:\n${created.stdout}`);
    say(`  created D1 database ${d1.name}: ${id}`);
  }
  writeFileSync(tomlPath, writeDatabaseId(toml, id));
  say(`  wrote database_id = "${id}" into wrangler.toml (commit it, so the next deploy uses the same database)`);
  return d1.name;
}

async function applyMigrations(database: string): Promise<void> {
  const result = await wrangler(COMMANDS.applyMigrations(database), { interactive: true, echo: true });
  if (result.code !== 0) throw failed(COMMANDS.applyMigrations(database), result);
}

async function existingSecrets(): Promise<Set<string>> {
  const result = await wrangler(COMMANDS.listSecrets());
  if (result.code !== 0) {
    // Before the first deploy the Worker does not exist yet, so it has no secrets.
    if (/not found/i.test(result.stdout + result.stderr)) return new Set();
    throw failed(COMMANDS.listSecrets(), result);
  }
  const list = jsonOutput(result.stdout);
  if (!Array.isArray(list)) throw new DeployError(`unexpected output of ${formatCommand(COMMANDS.listSecrets())}:\n${result.stdout}`);
  return new Set(list.map((s: { name?: unknown }) => String(s.name)));
}

async function putSecret(name: string, value: string): Promise<void> {
  const result = await wrangler(COMMANDS.putSecret(name), { input: value });
  if (result.code !== 0) throw failed(COMMANDS.putSecret(name), result);
  say(`  ${name} set`);
}

/** Returns the admin token when this run set it (the only time it can be shown). */
async function ensureSecrets(flags: Flags): Promise<string | undefined> {
  const present = await existingSecrets();
  if (present.has("OPENAI_API_KEY")) say("  OPENAI_API_KEY is set (kept)");
  else {
    const key = await readSecret("OPENAI_API_KEY");
    if (!key) {
      throw new DeployError(
        "OPENAI_API_KEY is not set on the Worker and none was given: export OPENAI_API_KEY, pipe it on stdin, or run on a terminal to be asked",
      );
    }
    say(`  OPENAI_API_KEY from ${key.from}`);
    await putSecret("OPENAI_API_KEY", key.value);
  }
  if (present.has("HERMES_ADMIN_TOKEN") && !flags.rotateAdminToken) {
    say("  HERMES_ADMIN_TOKEN is set (kept; --rotate-admin-token replaces it)");
    return undefined;
  }
  const token = process.env.HERMES_ADMIN_TOKEN?.trim() || randomSecret(32);
  await putSecret("HERMES_ADMIN_TOKEN", token);
  return token;
}

async function deployWorker(): Promise<string[]> {
  const result = await wrangler(COMMANDS.deploy(), { interactive: true, echo: true });
  if (result.code !== 0) throw failed(COMMANDS.deploy(), result);
  return deployedUrls(result.stdout);
}

function nextSteps(urls: string[], adminToken: string | undefined): string {
  const https = urls[0];
  const wss = https ? `${https.replace(/^https:/, "wss:").replace(/\/$/, "")}/acp` : undefined;
  const base = https ?? "https://<your worker's URL>";
  return [
    "",
    "hermes-edge is deployed.",
    wss ? `  WebSocket URL: ${wss}` : "  No workers.dev URL was printed (custom routes only?): the WebSocket URL is wss://<your host>/acp",
    ...(adminToken
      ? ["  Admin token (shown only now; keep it in a password manager):", `    ${adminToken}`]
      : ["  Admin token: unchanged (npm run deploy -- --rotate-admin-token makes a new one)"]),
    "",
    "Next:",
    "  1. Create a key for each person (the key is shown once):",
    `       HERMES_ADMIN_TOKEN=<admin token> npm run keys -- create --tenant <team> --label "<who>" --url ${base}`,
    `  2. On each editor's machine, save the URL (${wss ?? "wss://<your host>/acp"}) and the key for the proxy:`,
    `       ${shellLine(cloneProxy(root), ["--setup"])}      (from this clone)`,
    `       ${shellLine(PUBLISHED_PROXY, ["--setup"])}                  (once hermes-edge-proxy is published)`,
    "  3. Zed settings.json (the proxy reads the saved URL and key):",
    indent(zedSnippet(cloneProxy(root)), 7),
    `     or, with the published package: "command": "npx", "args": ["-y", "hermes-edge-proxy"]`,
    "",
  ].join("\n");
}

async function deploy(flags: Flags): Promise<void> {
  say("1/5 Cloudflare login");
  await checkLogin();
  say("2/5 D1 database");
  const database = await ensureDatabase();
  say("3/5 D1 migrations");
  await applyMigrations(database);
  say("4/5 secrets");
  const adminToken = await ensureSecrets(flags);
  say("5/5 deploy");
  const urls = await deployWorker();
  process.stdout.write(nextSteps(urls, adminToken));
}

/** Every command `deploy` may run, in order, with when it runs. */
function plan(database: string, placeholder: boolean, rotate: boolean): { args: string[]; when: string }[] {
  return [
    { args: COMMANDS.whoami(), when: "check the Cloudflare login" },
    ...(placeholder
      ? [
          { args: COMMANDS.listDatabases(), when: `find "${database}" (wrangler.toml still has the placeholder database_id)` },
          { args: COMMANDS.createDatabase(database), when: "only if it does not exist; its id is written into wrangler.toml" },
        ]
      : []),
    { args: COMMANDS.applyMigrations(database), when: "applies only what is not applied yet" },
    { args: COMMANDS.listSecrets(), when: "which secrets exist" },
    { args: COMMANDS.putSecret("OPENAI_API_KEY"), when: "only if missing; the value goes to wrangler's stdin" },
    { args: COMMANDS.putSecret("HERMES_ADMIN_TOKEN"), when: rotate ? "rotated: a new token, shown once" : "only if missing; generated, shown once" },
    { args: COMMANDS.deploy(), when: "upload and deploy" },
  ];
}

async function dryRun(flags: Flags): Promise<void> {
  const d1 = readD1Config(readFileSync(tomlPath, "utf8"));
  process.stdout.write("Dry run: nothing is created or changed. A deploy runs, in order:\n");
  for (const [i, step] of plan(d1.name, d1.id === PLACEHOLDER_DATABASE_ID, flags.rotateAdminToken).entries()) {
    process.stdout.write(`  ${i + 1}. ${formatCommand(step.args).padEnd(50)}  ${step.when}\n`);
  }
  const outdir = mkdtempSync(join(tmpdir(), "hermes-edge-bundle-"));
  try {
    const args = COMMANDS.bundle(outdir);
    process.stdout.write(`Building the bundle: ${formatCommand(args)}\n`);
    const result = await wrangler(args, { echo: true });
    if (result.code !== 0) throw failed(args, result);
    const size = measureBundle(outdir);
    const verdict = size.gzipBytes <= flags.maxGzipBytes ? "OK" : "TOO LARGE";
    process.stdout.write(
      `Bundle: ${formatBytes(size.rawBytes)}, gzip ${formatBytes(size.gzipBytes)} (${size.gzipBytes} bytes; limit ${formatBytes(flags.maxGzipBytes)}): ${verdict}\n`,
    );
    if (verdict !== "OK") {
      throw new DeployError(
        `the gzipped bundle (${size.gzipBytes} bytes) is above the limit of ${flags.maxGzipBytes} bytes: Cloudflare would refuse it (raise --max-gzip-bytes on a paid plan)`,
      );
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  try {
    const flags = parseFlags(process.argv.slice(2));
    if (flags === "help") {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    await (flags.dryRun ? dryRun(flags) : deploy(flags));
    return 0;
  } catch (err) {
    if (err instanceof DeployError) say(`\n${err.message}`);
    else if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) say(`${err.message}\n\n${USAGE}`);
    else say(`\nnpm run deploy failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    return 1;
  }
}

process.exitCode = await main();
