/**
 * A TypeScript script (a product CLI such as scripts/keys.ts, or a fixture a
 * test starts as a process) built once per test process into one `.mjs` that
 * plain `node` runs. Starting it through tsx costs about 0.8 s of CPU a start
 * (its loader and an esbuild service of its own); the built file costs 0.13 s.
 * Suites start these scripts about a hundred times, on two cores.
 *
 * The code is the same code: esbuild strips the types and joins the project's
 * own modules, and packages stay imports resolved from the checkout's
 * node_modules (the file is written under it). `import.meta.url` keeps the
 * entry's own URL, so a script that finds the checkout from it still does.
 * What `npm run …` itself adds is tested where it matters (long-answer.test.ts
 * runs `npm start`).
 */
import { buildSync } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const OUT_DIR = join(REPO_ROOT, "node_modules", ".cache", "hermes-edge-test-scripts");
const built = new Map<string, string>();

/** The path of `entry` (absolute, or relative to the checkout) built for `node`; built on first use in this process. */
export function bundledScript(entry: string): string {
  const source = resolve(REPO_ROOT, entry);
  const known = built.get(source);
  if (known) return known;
  const [output] = buildSync({
    entryPoints: [source],
    bundle: true,
    write: false,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    define: { "import.meta.url": JSON.stringify(pathToFileURL(source).href) },
    logLevel: "warning",
  }).outputFiles;
  // Named by content: processes that build the same script at once write the same file, and a changed script gets a new one.
  const tag = createHash("sha256").update(output!.contents).digest("hex").slice(0, 16);
  const outfile = join(OUT_DIR, `${basename(source, ".ts")}-${tag}.mjs`);
  if (!existsSync(outfile)) {
    mkdirSync(OUT_DIR, { recursive: true });
    const partial = `${outfile}.${process.pid}`;
    writeFileSync(partial, output!.contents);
    renameSync(partial, outfile);
  }
  built.set(source, outfile);
  return outfile;
}
