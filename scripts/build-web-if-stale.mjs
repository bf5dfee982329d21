/**
 * wrangler.toml's `[build] command`: builds the web client (scripts/build-web.ts,
 * through tsx) only when web/dist is not built from the current sources.
 * wrangler runs it twice on every `wrangler dev` start, and nearly always it
 * finds web/dist up to date: node alone answers that in a tenth of the CPU
 * tsx takes to start (scripts/lib/web-build-stamp.mjs).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { webDistState } from "./lib/web-build-stamp.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (webDistState(root).fresh) {
  console.log("web client in web/dist is up to date");
} else {
  const built = spawnSync(process.execPath, ["--import", "tsx", "scripts/build-web.ts"], { cwd: root, stdio: "inherit" });
  process.exitCode = built.status ?? 1;
}
