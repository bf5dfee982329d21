/**
 * The size Cloudflare checks: the Worker's modules gzipped together, as
 * `wrangler deploy --dry-run --outdir` leaves them (source maps and the
 * README wrangler writes there are not uploaded as code).
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** Cloudflare's Worker size limit on the free plan (3 MiB after gzip). */
export const DEFAULT_MAX_GZIP_BYTES = 3 * 1024 * 1024;

export function measureBundle(dir: string): { files: string[]; rawBytes: number; gzipBytes: number } {
  const files = listFiles(dir).filter((f) => !f.endsWith(".map") && !/(^|\/)README\.md$/.test(f));
  const content = Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  return { files, rawBytes: content.length, gzipBytes: gzipSync(content).length };
}

function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix)).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, rel)).isDirectory() ? listFiles(dir, rel) : [rel];
  });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
