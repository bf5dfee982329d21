// The wrangler dev harness, against a throwaway Worker in a temp dir (never the
// repo's own Worker, so this test does not depend on src/). Slow: ~30 s; in the `subprocess` project.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, freePort, type DevServer } from "../../support/wrangler-dev.js";
import { groupAlive, killGroup } from "../../../scripts/lib/process-group.js";

const WORKER = `
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/health") return new Response("ok");
    if (pathname === "/env") return Response.json({ tokens: env.HERMES_EDGE_TOKENS ?? null, fromDevVars: env.ONLY_IN_DEV_VARS ?? null, url: env.URL_VAR ?? null });
    if (pathname === "/bump") {
      await env.DB.prepare("UPDATE counter SET n = n + 1 WHERE id = 1").run();
      return Response.json(await env.DB.prepare("SELECT n FROM counter WHERE id = 1").first());
    }
    return new Response("not found", { status: 404 });
  },
};`;

const CONFIG = `
name = "harness-test"
main = "worker.js"
compatibility_date = "2026-04-20"
[[d1_databases]]
binding = "DB"
database_name = "hermes-edge"
database_id = "00000000-0000-4000-8000-000000000000"
migrations_dir = "migrations"
`;

function writeThrowawayWorker(dir: string): void {
  mkdirSync(join(dir, "migrations"));
  writeFileSync(join(dir, "wrangler.toml"), CONFIG);
  writeFileSync(join(dir, "worker.js"), WORKER);
  writeFileSync(join(dir, "migrations", "0001_counter.sql"), "CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER);\nINSERT INTO counter VALUES (1, 0);\n");
  // Must be ignored: the harness passes every variable as --var.
  writeFileSync(join(dir, ".dev.vars"), "HERMES_EDGE_TOKENS=from-dev-vars\nONLY_IN_DEV_VARS=leaked\n");
}

const json = async (url: string) => (await fetch(url)).json();

describe("startDevServer", () => {
  let dir: string;
  let dev: DevServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "harness-test-"));
    writeThrowawayWorker(dir);
    dev = await startDevServer({ cwd: dir, vars: { HERMES_EDGE_TOKENS: "tok-a,tok-b", URL_VAR: "http://127.0.0.1:1/v1" } });
  }, 90_000);

  afterAll(async () => {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("Should serve with --var values and ignore .dev.vars", async () => {
    expect(dev.url).toBe(`http://127.0.0.1:${dev.port}`);
    expect(dev.wsUrl).toBe(`ws://127.0.0.1:${dev.port}/acp`);
    expect(await json(`${dev.url}/env`)).toEqual({ tokens: "tok-a,tok-b", fromDevVars: null, url: "http://127.0.0.1:1/v1" });
  });

  it("Should apply migrations and keep D1 state across restart", async () => {
    expect(await json(`${dev.url}/bump`)).toEqual({ n: 1 });
    const before = dev.pid;
    await dev.restart();
    expect(dev.pid).not.toBe(before);
    expect(groupAlive(before)).toBe(false);
    expect(await json(`${dev.url}/bump`)).toEqual({ n: 2 });
  }, 90_000);

  it("Should start wrangler again only after it exited on its own, keeping D1 state", async () => {
    const running = dev.pid;
    await dev.ensureRunning();
    expect(dev.pid).toBe(running);
    killGroup(running, "SIGKILL"); // as a crash would end it
    await expect.poll(() => groupAlive(running), { timeout: 10_000 }).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500)); // for node to see the exit
    await dev.ensureRunning();
    expect(dev.pid).not.toBe(running);
    expect(await json(`${dev.url}/bump`)).toEqual({ n: 3 });
  }, 90_000);

  it("Should leave no process or port behind after stop", async () => {
    const { pid, url, persistDir } = dev;
    await dev.stop();
    expect(groupAlive(pid)).toBe(false);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect(existsSync(persistDir)).toBe(false);
  }, 30_000);

  it("Should fail with wrangler's output when /health never answers 200", async () => {
    // The deadline must leave wrangler time to start and log a 404: under load that takes 5 to 10 s.
    const started = startDevServer({ cwd: dir, vars: {}, healthPath: "/nope", startTimeoutMs: 20_000, port: await freePort() });
    await expect(started).rejects.toThrow(/did not answer 200[\s\S]*GET \/nope 404/);
  }, 60_000);
});
