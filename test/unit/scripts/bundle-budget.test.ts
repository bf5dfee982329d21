/**
 * Issue 25, target 7: the Worker bundle as `wrangler deploy` uploads it stays
 * within 1.8 MiB raw and 350 KiB gzip, without the MCP SDK's ajv validator or
 * zod's 40-odd message locales, and with a source map that names the service's
 * TypeScript files (production stack traces; wrangler.toml uploads it).
 * `npx tsx bench/bundle.ts` prints the same build's per-package breakdown.
 */
import { describe, expect, it } from "vitest";
import { BUNDLE_BUDGET, unwantedInputs } from "../../../scripts/lib/bundle-breakdown.js";
import { buildBundle } from "../../../scripts/lib/bundle-build.js";
import { REPO_ROOT } from "./deploy-harness.js";

describe("the Worker bundle (real wrangler, offline)", { timeout: 120_000 }, () => {
  it("fits issue 25's budget, leaves ajv and zod's locales out, and comes with a source map of the TypeScript sources", async () => {
    const bundle = await buildBundle(REPO_ROOT);
    expect(bundle.files).toEqual(["worker.js"]);
    expect(unwantedInputs(bundle.meta)).toEqual({ ajv: [], zodLocales: [] });
    expect(bundle.rawBytes, bundle.wranglerLine).toBeLessThanOrEqual(BUNDLE_BUDGET.rawBytes);
    expect(bundle.gzipBytes, bundle.wranglerLine).toBeLessThanOrEqual(BUNDLE_BUDGET.gzipBytes);
    expect(bundle.sourceMapSources.some((s) => s.endsWith("src/worker.ts"))).toBe(true);
    expect(bundle.sourceMapSources.some((s) => s.endsWith("src/mcp/http-link.ts"))).toBe(true);
  });
});
