import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { isWebBuildFresh, WEB_BUILD_INPUTS, webBuildFingerprint, writeWebBuildStamp } from "../../../scripts/lib/web-build-stamp.mjs";
import { inspectorPort, wranglerDevArgs, wranglerDevEnv } from "../../../scripts/lib/wrangler-dev-env.js";
import { REPO_ROOT } from "./deploy-harness.js";

const scratch = mkdtempSync(join(tmpdir(), "hermes-web-stamp-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function project(name: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, "src/nested"), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src/nested/b.ts"), "export const b = 2;\n");
  writeFileSync(join(root, "build.ts"), "build();\n");
  return root;
}

describe("web build fingerprint", () => {
  it("changes when a source's contents change, is added or renamed, not when it is only touched", () => {
    const root = project("fp");
    const inputs = ["src", "build.ts", "missing-dir"];
    const first = webBuildFingerprint(root, inputs);
    utimesSync(join(root, "src/a.ts"), new Date(0), new Date(0));
    expect(webBuildFingerprint(root, inputs)).toBe(first);
    writeFileSync(join(root, "src/a.ts"), "export const a = 3;\n");
    const edited = webBuildFingerprint(root, inputs);
    expect(edited).not.toBe(first);
    writeFileSync(join(root, "src/nested/c.ts"), "");
    const added = webBuildFingerprint(root, inputs);
    expect(added).not.toBe(edited);
    rmSync(join(root, "src/nested/c.ts"));
    expect(webBuildFingerprint(root, inputs)).toBe(edited);
    writeFileSync(join(root, "build.ts"), "build({ minify: false });\n");
    expect(webBuildFingerprint(root, inputs)).not.toBe(edited);
  });

  it("is fresh only with the same fingerprint and every output present", () => {
    const root = project("fresh");
    const stamp = join(root, "cache/stamp.json");
    const output = join(root, "dist/app.js");
    const fingerprint = webBuildFingerprint(root, ["src"]);
    expect(isWebBuildFresh(stamp, fingerprint, [output])).toBe(false); // nothing built yet
    mkdirSync(join(root, "dist"));
    writeFileSync(output, "");
    expect(isWebBuildFresh(stamp, fingerprint, [output])).toBe(false); // built, but no stamp
    writeWebBuildStamp(stamp, fingerprint);
    expect(isWebBuildFresh(stamp, fingerprint, [output])).toBe(true);
    expect(isWebBuildFresh(stamp, "other", [output])).toBe(false);
    rmSync(output);
    expect(isWebBuildFresh(stamp, fingerprint, [output])).toBe(false); // web/dist deleted
    writeFileSync(output, "");
    writeFileSync(stamp, "not json");
    expect(isWebBuildFresh(stamp, fingerprint, [output])).toBe(false);
  });

  it("covers every directory wrangler.toml watches", () => {
    const toml = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
    const watched = /^watch_dir\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1]?.match(/"[^"]+"/g)?.map((s) => s.slice(1, -1));
    expect(watched?.length).toBeGreaterThan(0);
    for (const dir of watched ?? []) expect(WEB_BUILD_INPUTS).toContain(dir);
  });
});

describe("npm start's wrangler dev environment", () => {
  it("turns off the inspector, the cf.json fetch and metrics, and logs at info", () => {
    const env = wranglerDevEnv({ PATH: "/bin" });
    expect(env).toEqual({
      PATH: "/bin",
      WRANGLER_SEND_METRICS: "false",
      VSCODE_INSPECTOR_OPTIONS: "{}",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_LOG: "info",
    });
  });

  it("gives way to what the caller set", () => {
    const env = wranglerDevEnv({ HERMES_INSPECTOR: "1", CLOUDFLARE_CF_FETCH_ENABLED: "true", WRANGLER_LOG: "debug" });
    expect(env.VSCODE_INSPECTOR_OPTIONS).toBeUndefined();
    expect(env.CLOUDFLARE_CF_FETCH_ENABLED).toBe("true");
    expect(env.WRANGLER_LOG).toBe("debug");
    expect(wranglerDevEnv({ VSCODE_INSPECTOR_OPTIONS: '{"x":1}' }).VSCODE_INSPECTOR_OPTIONS).toBe('{"x":1}');
  });

  it("reads wrangler's own environment from .dev.vars instead of .env only when HERMES_INSPECTOR=1 keeps the inspector", () => {
    expect(wranglerDevArgs({}, 8787)).toEqual([]);
    expect(wranglerDevArgs({ HERMES_INSPECTOR: "1" }, 8787)).toEqual(["--env-file", ".dev.vars", "--inspector-port", "9229"]);
  });

  it("puts the inspector on a port that follows PORT, so a second clone on another PORT starts beside the first", () => {
    expect(wranglerDevArgs({ HERMES_INSPECTOR: "1" }, 8790)).toEqual(["--env-file", ".dev.vars", "--inspector-port", "9232"]);
    expect(inspectorPort(8786)).toBe(9228);
    // Every PORT its own inspector port, never a privileged one nor past 65535.
    const ports = [1024, 3000, 8080, 8787, 8788, 9229, 50_000, 65_535];
    const inspectors = ports.map(inspectorPort);
    expect(new Set(inspectors).size).toBe(ports.length);
    for (const p of inspectors) expect(p >= 1024 && p <= 65_535).toBe(true);
  });

  it("is what the committed .env gives plain `wrangler dev`: no inspector, no Worker secrets from .env", () => {
    const env = parseEnv(readFileSync(join(REPO_ROOT, ".env"), "utf8"));
    expect(env).toEqual({ VSCODE_INSPECTOR_OPTIONS: "{}", CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "false" });
  });
});
