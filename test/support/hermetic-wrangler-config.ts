/**
 * The workers test project's wrangler config: a copy of the repo's
 * `wrangler.toml` written to a fresh temporary folder. vitest-pool-workers
 * reads the `.dev.vars` (and `.env`) beside the config it is given, so with
 * the repo's own file a developer's `HERMES_MODEL=…` would change test
 * results; beside the copy there is none, and the tests set their own bindings.
 *
 * @module
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Keys whose values are paths relative to the config's folder. */
const PATH_KEYS = ["main", "migrations_dir", "directory"];

export function hermeticWranglerConfig(repoRoot: string): string {
  const source = readFileSync(join(repoRoot, "wrangler.toml"), "utf8");
  const keys = new RegExp(`^(\\s*(?:${PATH_KEYS.join("|")})\\s*=\\s*)"([^"]+)"`, "gm");
  const copy = source.replace(keys, (_, head: string, value: string) => `${head}${JSON.stringify(resolve(repoRoot, value))}`);
  const path = join(mkdtempSync(join(tmpdir(), "hermes-edge-workers-config-")), "wrangler.toml");
  writeFileSync(path, copy);
  return path;
}
