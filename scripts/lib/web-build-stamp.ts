/**
 * Whether web/dist is already built from the current sources. wrangler 4.86
 * runs the `[build] command` once before `wrangler dev` starts and again as
 * soon as its `watch_dir` watcher is ready (whatever changed), so without
 * this check every start built the web client twice. The fingerprint is a
 * hash of what the build reads: the sources, the build script and the lockfile
 * (the bundled dependencies).
 * @module
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Hash of every file under `inputs` (directories or files), by path relative to `root` and contents. */
export function webBuildFingerprint(root: string, inputs: readonly string[]): string {
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

/** True when the stamp holds `fingerprint` and every expected output exists. */
export function isWebBuildFresh(stampPath: string, fingerprint: string, outputs: readonly string[]): boolean {
  if (!outputs.every((path) => existsSync(path))) return false;
  try {
    return JSON.parse(readFileSync(stampPath, "utf8")).fingerprint === fingerprint;
  } catch {
    return false;
  }
}

export function writeWebBuildStamp(stampPath: string, fingerprint: string): void {
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, `${JSON.stringify({ fingerprint })}\n`);
}
