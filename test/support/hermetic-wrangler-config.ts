/**
 * The workers test project's wrangler config: a copy of the repo's
 * `wrangler.toml` written to a fresh temporary folder. vitest-pool-workers
 * reads the `.dev.vars` (and `.env`) beside the config it is given, so with
 * the repo's own file a developer's `HERMES_MODEL=…` would change test
 * results; beside the copy there is none, and the tests set their own bindings.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { scratchDir } from "./scratch-dir.js";

/** Keys whose values are paths relative to the config's folder. */
const PATH_KEYS = ["main", "migrations_dir", "directory"];
/** `[alias]` entries: a quoted module name mapped to a relative path. */
const ALIAS_ENTRY = /^(\s*"[^"]+"\s*=\s*)"(\.\.?\/[^"]+)"/gm;

export function hermeticWranglerConfig(repoRoot: string): string {
  const source = readFileSync(join(repoRoot, "wrangler.toml"), "utf8");
  const keys = new RegExp(`^(\\s*(?:${PATH_KEYS.join("|")})\\s*=\\s*)"([^"]+)"`, "gm");
  const absolute = (_: string, head: string, value: string) => `${head}${JSON.stringify(resolve(repoRoot, value))}`;
  const copy = source.replace(keys, absolute).replace(ALIAS_ENTRY, absolute);
  const path = join(scratchDir("hermes-edge-workers-config-"), "wrangler.toml");
  writeFileSync(path, copy);
  return path;
}

/**
 * wrangler.toml's `[alias]` table as vite aliases (exact module names, absolute
 * paths), so the workers tests run with the modules the deployed bundle has.
 */
export function wranglerAliases(repoRoot: string): { find: RegExp; replacement: string }[] {
  const source = readFileSync(join(repoRoot, "wrangler.toml"), "utf8");
  const table = source.match(/^\[alias\]\n((?:(?!\[).*\n?)*)/m)?.[1] ?? "";
  return [...table.matchAll(/^\s*"([^"]+)"\s*=\s*"([^"]+)"/gm)].map(([, name, path]) => ({
    find: new RegExp(`^${name!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
    replacement: resolve(repoRoot, path!),
  }));
}
