/**
 * The npm modules the Worker and its workers tests import at run time, for the
 * workers projects' dependency optimizer (`deps.optimizer.ssr.include`). Every
 * workers file starts a runtime that loads the whole Worker graph; pre-bundled,
 * these packages are one module each instead of hundreds, which halves a file's
 * setup. Vite cannot discover them for the workers pool, so they are read from
 * the sources here and cannot fall behind a new import.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** `import … from "x"` and `export … from "x"`, type-only ones excluded (they vanish at build). */
const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+"([^"]+)"/gm;
/** A side-effect import: `import "x";`. */
const BARE_IMPORT = /^\s*import\s+"([^"]+)"/gm;

/** Not npm packages: relative paths, runtime built-ins, and this repo's own workspace packages (served as source). */
function isNpmModule(specifier: string): boolean {
  return !/^(?:\.|\/|node:|cloudflare:|@hermes-edge\/)/.test(specifier) && specifier !== "vitest";
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith(".d.ts"))
    .map((name) => join(folder, name));
}

/** The specifiers imported at run time by the `.ts` files under `folders`, sorted. */
export function runtimeImports(folders: string[]): string[] {
  const found = new Set<string>();
  for (const file of folders.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    for (const pattern of [RUNTIME_IMPORT, BARE_IMPORT]) {
      for (const [, specifier] of text.matchAll(pattern)) if (isNpmModule(specifier!)) found.add(specifier!);
    }
  }
  return [...found].sort();
}

/** What the workers projects pre-bundle: the run-time npm imports of the Worker, its protocol package and its tests. */
export function workerDependencies(repoRoot: string): string[] {
  return runtimeImports(["src", "packages/protocol/src", "test/workers"].map((folder) => join(repoRoot, folder)));
}
