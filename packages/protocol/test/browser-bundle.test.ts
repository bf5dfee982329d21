/**
 * The package must run in a browser (the web client uses it): bundling it for
 * `platform: "browser"` fails on any Node built-in it imports.
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("@hermes-edge/protocol in a browser", () => {
  it("bundles for the browser with no Node built-in", async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => path.startsWith("node:") || /(^|\/)node_modules\/(ws|undici)\//.test(path))).toEqual([]);
    expect(inputs.some((path) => path.endsWith("reconnect-tracker.ts"))).toBe(true);
  });
});
