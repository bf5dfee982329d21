/**
 * Builds a checkout's Worker bundle the way a deploy does, offline:
 * `wrangler deploy --dry-run --outdir DIR --metafile FILE`, and measures it
 * (bench/bundle.ts, the bundle budget test).
 * @module
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Metafile } from "./bundle-breakdown.js";
import { measureBundle } from "./bundle-size.js";

export interface BuiltBundle {
  files: string[];
  rawBytes: number;
  gzipBytes: number;
  /** wrangler's own "Total Upload: … / gzip: …" line. */
  wranglerLine: string;
  meta: Metafile;
  /** The `sources` of the bundle's source map (empty when wrangler wrote none). */
  sourceMapSources: string[];
}

function wranglerBin(dir: string): string {
  const own = join(dir, "node_modules/wrangler/bin/wrangler.js");
  return existsSync(own) ? own : createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
}

/** `extra`: more wrangler flags, such as `--no-minify`. */
export function buildBundle(dir: string, extra: string[] = []): Promise<BuiltBundle> {
  const out = mkdtempSync(join(tmpdir(), "hermes-edge-bundle-"));
  const dist = join(out, "dist");
  const metafile = join(out, "meta.json");
  const args = [wranglerBin(dir), "deploy", "--dry-run", "--outdir", dist, "--metafile", metafile, ...extra];
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_LOG_PATH: join(out, "logs"),
    NO_COLOR: "1",
  };
  return new Promise<BuiltBundle>((resolve, reject) =>
    execFile(process.execPath, args, { cwd: dir, env, timeout: 300_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      try {
        if (error) throw new Error(`wrangler ${args.slice(1).join(" ")} failed: ${String(stdout).slice(-2000)}${String(stderr).slice(-2000)}`);
        const size = measureBundle(dist);
        const map = size.files.map((f) => join(dist, `${f}.map`)).find((f) => existsSync(f));
        resolve({
          ...size,
          wranglerLine: `${stdout}\n${stderr}`.match(/Total Upload: [^\n]+/)?.[0] ?? "(no Total Upload line)",
          meta: JSON.parse(readFileSync(metafile, "utf8")) as Metafile,
          sourceMapSources: map ? ((JSON.parse(readFileSync(map, "utf8")) as { sources?: string[] }).sources ?? []) : [],
        });
      } catch (err) {
        reject(err);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }),
  );
}
