import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hermeticWranglerConfig, wranglerAliases } from "../../support/hermetic-wrangler-config.js";
import { removeScratchDirs } from "../../support/scratch-dir.js";

// The unit project's worker process is ended, not exited, so its exit hook would never remove the copies.
afterAll(removeScratchDirs);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

describe("hermeticWranglerConfig", () => {
  it("Should copy wrangler.toml outside the repo, where no .dev.vars or .env sits beside it", () => {
    const path = hermeticWranglerConfig(ROOT);
    expect(path.startsWith(ROOT)).toBe(false);
    expect(existsSync(resolve(dirname(path), ".dev.vars"))).toBe(false);
    expect(existsSync(resolve(dirname(path), ".env"))).toBe(false);
  });

  it("Should make every path in it absolute, pointing into the repo", () => {
    const text = readFileSync(hermeticWranglerConfig(ROOT), "utf8");
    const paths = [...text.matchAll(/^\s*(?:main|migrations_dir|directory)\s*=\s*"([^"]+)"/gm)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    for (const path of paths) {
      expect(isAbsolute(path)).toBe(true);
      expect(path.startsWith(ROOT)).toBe(true);
    }
    expect(text).toContain(`"${resolve(ROOT, "src/worker.ts")}"`);
    // The [alias] entries (ajv stubbed out of the bundle) point into the repo too.
    expect(text).toContain(`"ajv" = "${resolve(ROOT, "src/mcp/ajv-unavailable.ts")}"`);
    expect(text).not.toMatch(/= "\.\.?\//);
  });

  it("Should hand wrangler.toml's [alias] entries to vite as exact module names with absolute paths", () => {
    const aliases = wranglerAliases(ROOT);
    const ajv = aliases.find((a) => a.find.test("ajv"));
    expect(ajv?.replacement).toBe(resolve(ROOT, "src/mcp/ajv-unavailable.ts"));
    expect(aliases.some((a) => a.find.test("ajv/dist/2020.js"))).toBe(false);
    expect(aliases.some((a) => a.find.test("ajv-formats"))).toBe(true);
  });
});
