/**
 * A fake `wrangler` for testing `npm run deploy`: Cloudflare's API cannot be
 * reached from the test machines, so this stands in for it. It records every
 * call (argv and whatever arrived on stdin) in the JSON state file named by
 * FAKE_WRANGLER_STATE, keeps the account's state there (login, databases,
 * the Worker and its secrets) and answers the way wrangler 4.86 does: the
 * same JSON for `--json`/`--format json`, the same lines where the deploy
 * script reads text (the D1 config snippet of `d1 create`, the URL list of
 * `deploy`), the same exit codes.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const statePath = process.env.FAKE_WRANGLER_STATE;
if (!statePath) {
  process.stderr.write("fake wrangler: FAKE_WRANGLER_STATE is not set\n");
  process.exit(2);
}
const state = JSON.parse(readFileSync(statePath, "utf8"));
const argv = process.argv.slice(2);
const out = (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
const err = (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
const banner = () => out("\n ⛅️ wrangler 4.86.0\n───────────────────────────────────────────────────");

function readStdin() {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve("");
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (c) => (text += c));
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", () => resolve(text));
  });
}

function save() {
  writeFileSync(statePath, JSON.stringify(state, null, 2));
}

function configuredDatabaseId() {
  const toml = existsSync(join(process.cwd(), "wrangler.toml")) ? readFileSync(join(process.cwd(), "wrangler.toml"), "utf8") : "";
  return toml.match(/^database_id\s*=\s*"([^"]*)"/m)?.[1];
}

function requireAuth() {
  if (state.loggedIn) return true;
  err("✘ [ERROR] You are not authenticated. Please run `wrangler login`.");
  return false;
}

async function run() {
  const firstFlag = argv.findIndex((a) => a.startsWith("-"));
  const cmd = (firstFlag < 0 ? argv : argv.slice(0, firstFlag)).slice(0, 2).join(" ");
  const stdin = cmd === "secret put" ? await readStdin() : undefined;
  state.calls.push(stdin === undefined ? { argv } : { argv, stdin });
  save();

  if (cmd.startsWith("whoami")) {
    if (!argv.includes("--json")) return banner(), out(state.loggedIn ? `👋 You are logged in with an OAuth Token, associated with the email ${state.email}.` : "You are not authenticated. Please run `wrangler login`."), 0;
    if (!state.loggedIn) return out('\n{"loggedIn":false}'), 1;
    out(`\n${JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: state.email, accounts: state.accounts, tokenPermissions: ["workers_scripts:write", "d1:write"] }, null, 2)}`);
    return 0;
  }
  if (!(cmd === "deploy" && argv.includes("--dry-run")) && !requireAuth()) return 1;

  if (cmd === "d1 list") {
    out(JSON.stringify(state.databases.map((db) => ({ uuid: db.uuid, name: db.name, created_at: "2026-01-01T00:00:00.000Z", version: "production", num_tables: 0, file_size: 12288 })), null, 2));
    return 0;
  }
  if (cmd === "d1 create") {
    const name = argv[2];
    banner();
    if (state.databases.some((db) => db.name === name)) {
      err(`✘ [ERROR] A request to the Cloudflare API (/accounts/${state.accounts[0].id}/d1/database) failed.\n\n  A database with that name already exists [code: 7502]`);
      return 1;
    }
    const db = { uuid: randomUUID(), name };
    state.databases.push(db);
    save();
    out(`✅ Successfully created DB '${name}' in region WEUR\nCreated your new D1 database.\n`);
    out("To access your new D1 Database in your Worker, add the following snippet to your configuration file:");
    out(`[[d1_databases]]\nbinding = "${name.replace(/-/g, "_")}"\ndatabase_name = "${name}"\ndatabase_id = "${db.uuid}"`);
    return 0;
  }
  if (cmd === "d1 migrations") {
    banner();
    const db = state.databases.find((d) => d.uuid === configuredDatabaseId());
    if (!argv.includes("--remote") || !db) {
      err("✘ [ERROR] Couldn't find a D1 DB with the name or binding 'hermes-edge' in your wrangler.toml file.");
      return 1;
    }
    const pending = state.pendingMigrations;
    if (pending.length === 0) return out("✅ No migrations to apply!"), 0;
    out(`Migrations to be applied:\n${pending.map((m) => `│ ${m} │`).join("\n")}`);
    out(`🌀 Executing on remote database ${db.name} (${db.uuid}):`);
    out(`✅ Applied ${pending.length} migration(s).`);
    state.appliedMigrations.push(...pending);
    state.pendingMigrations = [];
    save();
    return 0;
  }
  if (cmd === "secret list") {
    if (!state.worker.exists) {
      err(`✘ [ERROR] Worker "hermes-edge" not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.\nOtherwise, check that the Worker name is correct and you're logged into the right account.`);
      return 1;
    }
    out(JSON.stringify(Object.keys(state.worker.secrets).map((name) => ({ name, type: "secret_text" })), null, "  "));
    return 0;
  }
  if (cmd === "secret put") {
    const name = argv[2];
    banner();
    if (!state.worker.exists) {
      out(`? There doesn't seem to be a Worker called "hermes-edge". Do you want to create a new Worker with that name and add secrets to it?\n🤖 Using fallback value in non-interactive context: yes`);
      out(`🌀 Creating new Worker "hermes-edge"...`);
      state.worker.exists = true;
    }
    out(`🌀 Creating the secret for the Worker "hermes-edge" `);
    state.worker.secrets[name] = stdin.replace(/\s+$/, "");
    save();
    out(`✨ Success! Uploaded secret ${name}`);
    return 0;
  }
  if (cmd === "deploy" && argv.includes("--dry-run")) {
    // Like wrangler: builds into --outdir without touching the account.
    const outdir = argv[argv.indexOf("--outdir") + 1];
    mkdirSync(outdir, { recursive: true });
    writeFileSync(join(outdir, "worker.js"), `export default { fetch() { return new Response("${"x".repeat(state.bundleBytes ?? 1000)}"); } };\n`);
    writeFileSync(join(outdir, "README.md"), "This folder contains the built output assets for the worker.\n");
    banner();
    out("Total Upload: 1.00 KiB / gzip: 0.20 KiB\n--dry-run: exiting now.");
    return 0;
  }
  if (cmd === "deploy") {
    banner();
    if (configuredDatabaseId() === "00000000-0000-4000-8000-000000000000") {
      err("✘ [ERROR] A request to the Cloudflare API failed: the D1 database 00000000-0000-4000-8000-000000000000 does not exist [code: 10181]");
      return 1;
    }
    state.worker.exists = true;
    state.worker.deploys += 1;
    save();
    out("Total Upload: 1591.74 KiB / gzip: 289.45 KiB");
    out("Uploaded hermes-edge (3.21 sec)");
    out("Deployed hermes-edge triggers (0.84 sec)");
    out(`  https://hermes-edge.${state.subdomain}.workers.dev`);
    out(`Current Version ID: ${randomUUID()}`);
    return 0;
  }
  err(`✘ [ERROR] Unknown arguments: ${argv.join(" ")}`);
  return 1;
}

process.exitCode = await run();
