/**
 * `npm run build` replaces dist/cli.js in one step: the proxy tests rebuild it
 * (global-setup.ts) while the e2e tests start proxies from it, and a build that
 * deleted it first made one of those fail with "Cannot find module".
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "./proxy-process.js";

const BUILD = fileURLToPath(new URL("../scripts/build.mjs", import.meta.url));

describe("the build", () => {
  it("keeps dist/cli.js in place while it rebuilds it, and leaves nothing else in dist", async () => {
    expect(existsSync(CLI)).toBe(true);
    const build = spawn(process.execPath, [BUILD], { stdio: "inherit" });
    const exited = new Promise<number | null>((resolve) => build.on("exit", resolve));
    let running = true;
    void exited.then(() => (running = false));
    let checks = 0;
    let missing = 0;
    while (running) {
      checks++;
      if (!existsSync(CLI)) missing++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await exited).toBe(0);
    expect(checks).toBeGreaterThan(10);
    expect(missing).toBe(0);
    expect(statSync(CLI).mode & 0o777).toBe(0o755);
    expect(readdirSync(dirname(CLI))).toEqual(["cli.js"]);
  });
});
