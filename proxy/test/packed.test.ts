/**
 * Issue 11, "packed proxy": `npm pack -w hermes-edge-proxy` gives a tarball that
 * installs into an empty folder (outside the workspace) and runs `--version`
 * and `--check` there. The workspace package @hermes-edge/protocol must be in
 * dist/, not a dependency. The install is offline-first: `ws` and `zod` come
 * from npm's cache, which `npm ci` filled.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeService } from "./fake-service.js";
import { isolatedEnv } from "./proxy-process.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const proxyPackage = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string; dependencies: Record<string, string> };

/** npm as the user has it, minus the npm_* variables of the `npm test` running this (workspace, prefix…). */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  return env;
}

let folder: string;
let bin: string;
let service: FakeService;

beforeAll(async () => {
  const work = scratchDir("hermes-proxy-pack-");
  // dist/ was built by global-setup; `prepare` would rebuild it under the other tests' running CLIs.
  await run("npm", ["pack", "-w", "hermes-edge-proxy", "--pack-destination", work, "--ignore-scripts", "--silent"], { cwd: repoRoot, env: npmEnv() });
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);
  folder = join(work, "empty");
  mkdirSync(folder);
  // --prefix: without it npm installs into the nearest parent holding a node_modules or package.json.
  const install = ["install", "--prefix", folder, "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", join(work, tarball)];
  await run("npm", install, { cwd: folder, env: npmEnv() });
  bin = join(folder, "node_modules", ".bin", "hermes-edge-proxy");
  service = await FakeService.start();
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe("the packed proxy", () => {
  it("ships only dist/cli.js with the workspace code inside, and depends on nothing but ws and zod", () => {
    const installed = join(folder, "node_modules", "hermes-edge-proxy");
    expect(readdirSync(join(installed, "dist"))).toEqual(["cli.js"]);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      scripts?: Record<string, string>;
    };
    // No install-time scripts: installing the tarball must not warn about them (npm ci in the repo builds dist/ from the root's prepare).
    for (const hook of ["prepare", "preinstall", "install", "postinstall"]) expect(manifest.scripts?.[hook]).toBeUndefined();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["ws", "zod"]);
    expect(readdirSync(join(folder, "node_modules")).filter((name) => name.startsWith("@hermes-edge"))).toEqual([]);
    expect(readFileSync(join(installed, "dist", "cli.js"), "utf8")).not.toMatch(/from ["']@hermes-edge\/protocol["']/);
    expect(proxyPackage.dependencies).toEqual(manifest.dependencies);
  });

  it("runs --version in an empty folder", async () => {
    const { stdout } = await run(bin, ["--version"], { cwd: folder, env: isolatedEnv() });
    expect(stdout.trim()).toBe(proxyPackage.version);
  });

  it("suggests npx for --setup when installed from the registry", async () => {
    const r = await run(bin, ["--check", "--url", service.url, "--token", "bad"], { cwd: folder, env: isolatedEnv() }).catch((err: unknown) => err as { stdout: string });
    expect(r.stdout).toContain("Run `npx hermes-edge-proxy --setup`");
  });

  it("runs --check against a service", async () => {
    const { stdout } = await run(bin, ["--check", "--url", service.url], { cwd: folder, env: isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }) });
    expect(stdout).toContain("Service: hermes-edge 0.0.0-fake, ACP protocol 1");
    expect(stdout).toMatch(/^OK$/m);
  });
});
