/**
 * Builds the browser client in `web/` with esbuild into `web/dist/`, the
 * directory Workers Static Assets serves: `/` (index.html), `/app.js` (the
 * reference IDE panel) and `/client.js` (the module integrators import).
 * wrangler.toml's `[build] command` runs this before `wrangler dev` and
 * `wrangler deploy`; the vitest config runs it before the tests. Files are
 * replaced by rename, so a `wrangler dev` that is already serving never reads
 * half a file. Nothing built is committed.
 *
 * `node --import tsx scripts/build-web.ts` (prints what it wrote). It skips
 * the build when web/dist is already built from the same sources: wrangler
 * runs it twice on every `wrangler dev` start (scripts/lib/web-build-stamp.mjs); wrangler itself
 * runs scripts/build-web-if-stale.mjs, which asks that without tsx and runs this only to build.
 * @module
 */
import { build, type Plugin } from "esbuild";
import { cpSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { webDistState } from "./lib/web-build-stamp.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const WEB_DIST = join(ROOT, "web/dist");

export interface BuiltFile {
  path: string;
  bytes: number;
}

function writeAtomically(path: string, contents: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/**
 * zod re-exports its 40-odd message locales as a namespace (`z.locales`),
 * which no bundler can drop: 250 KiB of the client. Nothing here switches
 * locale, so that namespace holds English only (zod's default, which it
 * imports on its own).
 */
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), "../locales/en.js"), namespace: "zod-locales" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

export async function buildWeb(outdir: string = WEB_DIST): Promise<BuiltFile[]> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { app: "web/src/app/main.tsx", client: "web/src/client/index.ts" },
    outdir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    sourcemap: "linked",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "eof",
    write: false,
    logLevel: "warning",
    plugins: [zodEnglishOnly],
  });
  const files: BuiltFile[] = result.outputFiles.map((file) => {
    writeAtomically(file.path, file.contents);
    return { path: file.path, bytes: file.contents.byteLength };
  });
  const publicDir = join(ROOT, "web/public");
  for (const name of readdirSync(publicDir)) {
    const target = join(outdir, name);
    cpSync(join(publicDir, name), `${target}.${process.pid}.tmp`);
    renameSync(`${target}.${process.pid}.tmp`, target);
    files.push({ path: target, bytes: 0 });
  }
  return files;
}

/**
 * Builds web/dist unless it is already built from the same sources (the stamp). Returns the files
 * written, or undefined when the build was fresh. The vitest config calls it too: each `vitest run`
 * of `npm test`'s lanes loads it, and rebuilding an unchanged client there cost ~2 s of CPU a load.
 */
export async function buildWebIfStale(): Promise<BuiltFile[] | undefined> {
  const state = webDistState(ROOT);
  if (state.fresh) return undefined;
  const files = await buildWeb();
  state.markBuilt();
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const files = await buildWebIfStale();
  if (files === undefined) {
    console.log("web client in web/dist is up to date");
    process.exit(0);
  }
  const sizes = files.filter((f) => f.bytes > 0 && !f.path.endsWith(".map")).map((f) => `${basename(f.path)} ${(f.bytes / 1024).toFixed(1)} KiB`);
  console.log(`web client built into web/dist: ${sizes.join(", ")}`);
}
