import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixVitestPool } from "../../support/vitest-pool-fixes.js";

const FILES = ["dist/worker/lib/cloudflare/test-internal.mjs", "dist/worker/index.mjs"];
const installed = join(import.meta.dirname, "../../../node_modules/@cloudflare/vitest-pool-workers");
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the installed pool's two files, as they are now (the vitest config has fixed them already). */
function poolCopy(edit: (text: string) => string = (t) => t): string {
  const dir = mkdtempSync(join(tmpdir(), "pool-fixes-"));
  made.push(dir);
  for (const file of FILES) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), edit(readFileSync(join(installed, file), "utf8")));
  }
  return dir;
}

const read = (dir: string) => FILES.map((file) => readFileSync(join(dir, file), "utf8"));
/** The shipped text: the fixes taken out again. */
const unfixed = (text: string) =>
  text
    .replace(/\tlet proxyInstalled = false;[^\n]*\n/, "")
    .replace("if (!proxyInstalled && (proxyInstalled = true)) Class.prototype", "Class.prototype")
    .replace(/\t+if \(runner\.transportWrapped\) return;[^\n]*\n\t+runner\.transportWrapped = true;\n/, "");

describe("fixVitestPool", () => {
  it("installs one prototype proxy per class and one transport wrapper per runner, once however often it runs", () => {
    const dir = poolCopy(unfixed);
    expect(read(dir).join("")).not.toContain("hermes-edge");
    fixVitestPool(dir);
    const [internal, index] = read(dir);
    expect(internal).toContain("if (!proxyInstalled && (proxyInstalled = true)) Class.prototype = new Proxy(");
    expect(index).toContain("if (runner.transportWrapped) return;");
    fixVitestPool(dir);
    expect(read(dir)).toEqual([internal, index]);
    // What the config fixed in node_modules is the same text.
    expect(read(installed)).toEqual([internal, index]);
  });

  it("refuses a version whose files hold neither the passage nor its fix", () => {
    const dir = poolCopy((text) => unfixed(text).replaceAll("Class.prototype = new Proxy", "Class.prototype = makeProxy"));
    expect(() => fixVitestPool(dir)).toThrow(/is not the version these fixes are for/);
  });
});
