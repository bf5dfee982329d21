/**
 * Small fixes to an installed npm package's files, each an exact passage of a
 * shipped file replaced by its fix. Applied again at every start (idempotent,
 * by rename, so a process already reading the file is never handed half of it).
 * A file that holds neither the passage nor its fix is another version: that
 * throws, so a dependency update cannot silently drop a fix still needed.
 * @module
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface PackageFix {
  /** Relative to the package's folder. */
  file: string;
  before: string;
  after: string;
}

/** Applies `fixes` to the package in `packageDir`; `owner` (the module that lists them) is named in the error. */
export function applyFixes(packageDir: string, fixes: readonly PackageFix[], owner: string): void {
  for (const fix of fixes) {
    const path = join(packageDir, fix.file);
    const text = readFileSync(path, "utf8");
    if (text.includes(fix.after)) continue;
    const at = text.indexOf(fix.before);
    if (at === -1 || text.indexOf(fix.before, at + 1) !== -1) {
      throw new Error(`${owner}: ${path} is not the version these fixes are for; check whether the package still needs them`);
    }
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, text.replace(fix.before, fix.after));
    renameSync(temporary, path);
  }
}
