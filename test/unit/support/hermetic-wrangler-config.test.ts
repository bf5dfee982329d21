import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hermeticWranglerConfig } from "../../support/hermetic-wrangler-config.js";

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
  });
});
