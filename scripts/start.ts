/**
 * `npm start`: everything a first local run needs. Creates `.dev.vars` with a
 * random token and admin token if it is missing (an existing one only gets a
 * missing HERMES_ADMIN_TOKEN added, nothing overwritten), builds the proxy if
 * needed, applies the local D1 migrations (quietly), starts `wrangler dev` on
 * 127.0.0.1:$PORT (8787 by default) without its DevTools inspector, with
 * wrangler's own output cut to warnings, errors and requests
 * (scripts/lib/wrangler-dev-env.ts), and says how to connect.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureDevVars, readDevVars } from "./lib/dev-vars.js";
import { startBanner } from "./lib/start-banner.js";
import { wranglerDevArgs, wranglerDevEnv } from "./lib/wrangler-dev-env.js";
import { fixWrangler } from "./lib/wrangler-fixes.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const varsPath = join(root, ".dev.vars");
const host = "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);

/** Runs a setup step quietly: its output (wrangler's migration tables…) is shown only when it fails. */
function run(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
    console.error(`${what} failed; see the output above`);
    process.exit(result.status ?? 1);
  }
}

async function waitForHealth(): Promise<boolean> {
  for (let i = 0; i < 120; i++) {
    try {
      const res = await fetch(`http://${host}:${port}/health`);
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

const vars = ensureDevVars(varsPath);
if (vars.created) console.error("created .dev.vars with a new local token and admin token");
else if (vars.addedAdminToken) console.error("added HERMES_ADMIN_TOKEN to .dev.vars (nothing else changed)");
// The editor snippet points at the built proxy; `npm ci` builds it, a clone that skipped scripts may not have.
if (!existsSync(join(root, "proxy", "dist", "cli.js"))) run("npm", ["run", "build", "-w", "hermes-edge-proxy"], "building the proxy");
run("npx", ["wrangler", "d1", "migrations", "apply", "hermes-edge", "--local"], "applying the local D1 migrations");
// A browser that navigates away mid-request must not stop the local service (scripts/lib/wrangler-fixes.ts).
// Another wrangler version still starts, without the fix.
try {
  fixWrangler(join(root, "node_modules", "wrangler"));
} catch (err) {
  console.error(`${err instanceof Error ? err.message : String(err)}; starting wrangler dev without the fix`);
}
const wrangler = spawn("npx", ["wrangler", "dev", "--ip", host, "--port", String(port), ...wranglerDevArgs(process.env, port)], {
  cwd: root,
  stdio: "inherit",
  env: wranglerDevEnv(process.env),
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code) => process.exit(code ?? 0));
if (await waitForHealth()) console.error(startBanner({ root, wsUrl: `ws://${host}:${port}/acp`, vars: readDevVars(varsPath) ?? {} }));
else console.error(`wrangler dev did not answer on http://${host}:${port}/health within 60 s`);
