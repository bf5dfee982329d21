/**
 * Whether web/dist is already built from the current sources. wrangler 4.86
 * runs the `[build] command` once before `wrangler dev` starts and again as
 * soon as its `watch_dir` watcher is ready (whatever changed), so without
 * this check every start built the web client twice. The fingerprint is a
 * hash of what the build reads: the sources, the build script and the lockfile
 * (the bundled dependencies).
 *
 * Plain JavaScript (its types are in `web-build-stamp.d.mts`) because
 * `scripts/build-web-if-stale.mjs`, the `[build] command`, runs it with node
 * alone: tsx and its esbuild service cost ~1 s of CPU a start, twice per
 * `wrangler dev` start, ~35 core-seconds of `npm test`.
 * @module
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** What the web build reads; a change to any of them rebuilds. */
export const WEB_BUILD_INPUTS = ["web/src", "web/public", "scripts/build-web.ts", "package-lock.json"];
/** What it writes that must exist, under web/dist. */
const WEB_BUILD_OUTPUTS = ["index.html", "app.js", "client.js"];
const STAMP = "node_modules/.cache/hermes-edge/web-build.json";

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export function webBuildFingerprint(root, inputs) {
  const hash = createHash("sha256");
  for (const input of inputs) {
    const absolute = join(root, input);
    const files = existsSync(absolute) && statSync(absolute).isFile() ? [absolute] : filesUnder(absolute);
    for (const file of files) {
      hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return hash.digest("hex");
}

export function isWebBuildFresh(stampPath, fingerprint, outputs) {
  if (!outputs.every((path) => existsSync(path))) return false;
  try {
    return JSON.parse(readFileSync(stampPath, "utf8")).fingerprint === fingerprint;
  } catch {
    return false;
  }
}

export function writeWebBuildStamp(stampPath, fingerprint) {
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, `${JSON.stringify({ fingerprint })}\n`);
}

export function webDistState(root) {
  const fingerprint = webBuildFingerprint(root, WEB_BUILD_INPUTS);
  const stamp = join(root, STAMP);
  const fresh = isWebBuildFresh(stamp, fingerprint, WEB_BUILD_OUTPUTS.map((name) => join(root, "web/dist", name)));
  return { fresh, markBuilt: () => writeWebBuildStamp(stamp, fingerprint) };
}
