/**
 * A throwaway copy of this checkout, for tests that run `npm start` or plain
 * `wrangler dev` the way a user does in a clone. It holds what git tracks
 * (working-tree contents, so uncommitted edits are tested too) except tests,
 * benchmarks and docs, plus the built web client; `node_modules` and the
 * built proxy are links to this checkout's. Ignored files such as `.dev.vars`,
 * `.env.local` and `.wrangler/` are never copied: the developer's secrets and
 * local state stay out, and each copy starts with an empty local D1.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const LEFT_OUT = ["test/", "bench/", "docs/", "proxy/"];
/** Built or installed, not tracked: linked (or copied, for web/dist) from this checkout. */
const LINKED = ["node_modules", "proxy"];

export interface CheckoutCopy {
  dir: string;
  remove(): void;
}

/** What git would not track, for a tree without `.git` (a tarball of the sources). */
const IGNORED = new Set(["node_modules", ".wrangler", ".dev.vars", ".env.local", ".git", "dist"]);

/** Paths (relative to the checkout) a clone has, working-tree contents; tests, benchmarks, docs and the proxy left out. */
function clonePaths(): string[] {
  let paths: string[];
  try {
    paths = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\0");
  } catch {
    paths = readdirSync(REPO_ROOT, { recursive: true, encoding: "utf8" }).filter(
      (path) => !path.split(sep).some((part) => IGNORED.has(part) || part.endsWith(".log")) && statSync(join(REPO_ROOT, path)).isFile(),
    );
  }
  return paths.filter((path) => path && !LEFT_OUT.some((prefix) => path.startsWith(prefix)) && existsSync(join(REPO_ROOT, path)));
}

export function copyCheckout(): CheckoutCopy {
  const dir = mkdtempSync(join(tmpdir(), "hermes-edge-clone-"));
  for (const path of clonePaths()) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    cpSync(join(REPO_ROOT, path), join(dir, path));
  }
  for (const name of LINKED) symlinkSync(join(REPO_ROOT, name), join(dir, name));
  // Built already (vitest.config.ts builds it); the copy's wrangler [build] finds it up to date.
  if (existsSync(join(REPO_ROOT, "web/dist"))) cpSync(join(REPO_ROOT, "web/dist"), join(dir, "web/dist"), { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
