import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixWrangler, WRANGLER_FIXES } from "../../../scripts/lib/wrangler-fixes.js";

const CLI = "wrangler-dist/cli.js";
const installed = join(import.meta.dirname, "../../../node_modules/wrangler");
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A wrangler folder whose cli.js is `text`. */
function wranglerWith(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "wrangler-fixes-"));
  made.push(dir);
  mkdirSync(join(dir, "wrangler-dist"));
  writeFileSync(join(dir, CLI), text);
  return dir;
}

const fix = WRANGLER_FIXES[0]!;
const cli = (dir: string) => readFileSync(join(dir, CLI), "utf8");
/** The installed cli.js as shipped: the fix taken out again, if a start has applied it already. */
const shipped = () => cli(installed).replace(fix.after, fix.before);

describe("fixWrangler", () => {
  it("keeps wrangler dev serving when one request fails inside its proxy, and applies once however often it runs", () => {
    const dir = wranglerWith(shipped());
    fixWrangler(dir);
    const fixed = cli(dir);
    // The ProxyWorker's report of one failed request is a warning, checked before the branch that ends in emit("error").
    expect(fixed).toContain(`event.reason === "Error inside ProxyWorker") { // hermes-edge`);
    expect(fixed.indexOf(`"Error inside ProxyWorker") { // hermes-edge`)).toBeLessThan(fixed.indexOf(fix.before));
    fixWrangler(dir);
    expect(cli(dir)).toBe(fixed);
  });

  it("refuses a wrangler whose cli.js holds neither the passage nor its fix", () => {
    const dir = wranglerWith(shipped().replace(fix.before, "} else if (somethingElse) {"));
    expect(() => fixWrangler(dir)).toThrow(/scripts\/lib\/wrangler-fixes\.ts: .* is not the version these fixes are for/);
  });
});
