/**
 * `npm run deploy -- --dry-run` with the real wrangler: it builds this
 * project's bundle offline, reports its gzip size and enforces the limit.
 * It needs no Cloudflare login and changes nothing in the clone.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeScratch, REPO_ROOT, runDeploy } from "./deploy-harness.js";

afterAll(removeScratch);

const toml = () => readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");

// A real wrangler build takes a few seconds alone and much longer on a loaded machine.
describe("npm run deploy -- --dry-run (real wrangler)", { timeout: 60_000 }, () => {
  it("builds the real bundle, reports its gzip size under the 3 MiB default, and leaves wrangler.toml alone", async () => {
    const before = toml();
    const run = await runDeploy({ dir: REPO_ROOT }, ["--dry-run"], { fake: false });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("1. wrangler whoami --json");
    expect(run.stdout).toMatch(/\d\. wrangler deploy\s{2,}upload and deploy/);
    const bytes = Number(run.stdout.match(/gzip [\d.]+ [KM]iB \((\d+) bytes; limit 3\.00 MiB\): OK/)?.[1]);
    expect(bytes).toBeGreaterThan(50_000);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
    // wrangler's own report is passed through, and agrees with ours.
    const wranglerKiB = Number(run.stderr.match(/Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/)?.[1]);
    expect(Math.abs(wranglerKiB * 1024 - bytes) / bytes).toBeLessThan(0.02);
    expect(toml()).toBe(before);
  });

  it("fails when the gzipped bundle is above --max-gzip-bytes", async () => {
    const run = await runDeploy({ dir: REPO_ROOT }, ["--dry-run", "--max-gzip-bytes", "50000"], { fake: false });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("TOO LARGE");
    expect(run.stderr).toMatch(/the gzipped bundle \(\d+ bytes\) is above the limit of 50000 bytes: Cloudflare would refuse it/);
  });
});
