/**
 * Starts and stops `wrangler dev` for end-to-end tests and benchmarks.
 *
 * Each server runs in its own process group (wrangler → node → workerd), so
 * stop() can end all of it with one signal and leave no workerd behind.
 * Variables are passed only as `--var`: `--env-file` pointing at an empty file
 * plus `CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV=false` keep a developer's
 * `.dev.vars` or `.env` in the repo from leaking into tests. `readDotEnv`
 * drops `--env-file`, for a `cwd` that is a copy of the checkout
 * (test/support/checkout-copy.ts) where `.env` is the committed one.
 *
 * @module
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { groupAlive, killGroup } from "../../scripts/lib/process-group.js";
import { fixWrangler } from "../../scripts/lib/wrangler-fixes.js";

export interface DevServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `ws://127.0.0.1:PORT/acp` */
  wsUrl: string;
  port: number;
  persistDir: string;
  /** Process group id of the running wrangler (changes on restart). */
  pid: number;
  /** Ends the whole process group; removes persistDir if this harness created it. */
  stop(): Promise<void>;
  /** Stops, then starts again on the same port and persist dir (state is kept). */
  restart(): Promise<void>;
  /** Starts wrangler again (as `restart`) if it exited on its own; a shared server calls it before each file. */
  ensureRunning(): Promise<void>;
  /** The end of what the running wrangler printed (its request lines, errors): for a failed test's report. */
  output(): string;
}

export interface DevServerOptions {
  /** Worker variables and secrets, passed as `--var K:V`. */
  vars: Record<string, string>;
  /** Default: a free port. */
  port?: number;
  /** Default: a new temporary directory, removed by stop(). */
  persistDir?: string;
  /** Directory holding wrangler.toml. Default: the repo root. */
  cwd?: string;
  /** D1 database whose migrations are applied first. Default "hermes-edge". */
  database?: string;
  /** Apply D1 migrations before starting (default true). */
  migrate?: boolean;
  /** Default "/health". */
  healthPath?: string;
  /** Default 60 000. */
  startTimeoutMs?: number;
  /**
   * Let wrangler read `cwd`'s `.env` (and `.env.local`) into its own environment, as plain
   * `wrangler dev` does, instead of an empty `--env-file`. Without `--env-file` wrangler would
   * also read a `.dev.vars` beside the config, so use it only where `cwd` has none of the
   * developer's files. Default false.
   */
  readDotEnv?: boolean;
  /** Keep wrangler's DevTools inspector on (default off, as `npm start` and plain `wrangler dev` run; with readDotEnv, .env decides). */
  inspector?: boolean;
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const OUTPUT_TAIL_CHARS = 16_000;
const STOP_GRACE_MS = 5_000;

/** Wrangler's CLI from this repo's node_modules: faster than `npx` and one process fewer. */
const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const WRANGLER_VERSION = (JSON.parse(readFileSync(join(dirname(WRANGLER_BIN), "..", "package.json"), "utf8")) as { version: string }).version;

/**
 * Process groups still running, by their leader (wrangler's node process), killed if the test process
 * exits without stop(). Only while the leader lives: the kernel may give a dead group's id to a new
 * process (ids wrap at 32,768 here, several times in one `npm test`), and that one may be another lane's.
 */
const liveGroups = new Map<number, ChildProcess>();
process.once("exit", () => {
  for (const [pgid, leader] of liveGroups) if (leader.exitCode === null && leader.signalCode === null) killGroup(pgid, "SIGKILL");
});

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** The environment wrangler runs with: no telemetry, no network, no stray secrets. */
/**
 * wrangler's environment. Without `inspector`, wrangler's DevTools inspector is off, as `npm start` and
 * plain `wrangler dev` run it (the committed `.env`, which the harness's own --env-file keeps wrangler from reading):
 * wrangler skips the inspector when VSCODE_INSPECTOR_OPTIONS is set.
 */
export function wranglerEnv(persistDir: string, inspector = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (inspector) delete env["VSCODE_INSPECTOR_OPTIONS"];
  else env["VSCODE_INSPECTOR_OPTIONS"] ??= "{}";
  return {
    ...env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true", // the banner is what triggers the npm update check
    CLOUDFLARE_CF_FETCH_ENABLED: "false", // else it fetches workers.cloudflare.com/cf.json
    CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "false",
    CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
    WRANGLER_LOG_PATH: join(persistDir, "wrangler-logs"),
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
}

let exitOnSignals = false;

/**
 * For a server no test stops (one shared by a worker's files): the worker's end stops it. vitest ends
 * a worker with SIGTERM (SIGKILL 500 ms later), which skips "exit" listeners, and Playwright's own
 * SIGTERM handler keeps Node from exiting on it at all: the signal handlers, set once per process,
 * turn SIGTERM and SIGINT into an exit. On exit the group gets SIGKILL (no time for a graceful stop)
 * and its persist dir is removed.
 */
export function stopWithProcess(server: DevServer): void {
  // Its group is killed by the exit listener above (registered first, so it runs first).
  process.once("exit", () => rmSync(server.persistDir, { recursive: true, force: true, maxRetries: 3 }));
  if (exitOnSignals) return;
  exitOnSignals = true;
  process.once("SIGTERM", () => process.exit(128 + 15));
  process.once("SIGINT", () => process.exit(128 + 2));
}

/**
 * Applies the D1 migrations into persistDir (a no-op when already applied).
 * Asynchronous so that a mock server in the same process keeps answering.
 */
export function applyMigrations(cwd: string, database: string, persistDir: string): Promise<void> {
  const args = [WRANGLER_BIN, "d1", "migrations", "apply", database, "--local", "--persist-to", persistDir];
  const options = { cwd, env: wranglerEnv(persistDir), encoding: "utf8" as const, timeout: 60_000 };
  return new Promise((done, fail) => {
    execFile(process.execPath, args, options, (error, stdout, stderr) => {
      if (!error) return done();
      const output = stripVTControlCharacters(`${stdout}${stderr}`).slice(-OUTPUT_TAIL_CHARS);
      fail(new Error(`wrangler d1 migrations apply ${database} failed (${error.code ?? error.signal}):\n${output}`));
    });
  });
}

/**
 * Migrates a new persistDir by copying a template that `applyMigrations` built once. One
 * `wrangler d1 migrations apply` costs ~10 s of CPU (it starts its own workerd), more than the
 * `wrangler dev` it precedes; the template is keyed on everything that decides its contents
 * (wrangler's version, wrangler.toml, the migrations' .sql files, which are all wrangler applies), so a change to any of them builds a new one.
 * A persistDir that already holds D1 state is migrated in place, as before.
 */
export async function migratePersistDir(cwd: string, database: string, persistDir: string): Promise<void> {
  if (existsSync(join(persistDir, "v3", "d1"))) return applyMigrations(cwd, database, persistDir);
  cpSync(await migratedTemplate(cwd, database), persistDir, { recursive: true });
}

async function migratedTemplate(cwd: string, database: string): Promise<string> {
  const hash = createHash("sha256").update(WRANGLER_VERSION).update(database).update(readFileSync(join(cwd, "wrangler.toml")));
  const migrations = join(cwd, "migrations");
  for (const name of readdirSync(migrations).filter((n) => n.endsWith(".sql")).sort()) hash.update(name).update(readFileSync(join(migrations, name)));
  const template = join(tmpdir(), `hermes-edge-d1-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(template)) return template;
  // Built aside and renamed into place, so a file running beside this one never copies half a template.
  const building = mkdtempSync(`${template}-building-`);
  try {
    await applyMigrations(cwd, database, building);
    rmSync(join(building, "wrangler-logs"), { recursive: true, force: true });
    renameSync(building, template);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(template)) throw error; // else another process won the rename
  }
  return template;
}

interface Running {
  child: ChildProcess;
  pgid: number;
  exited: Promise<void>;
  output: () => string;
  /** Set by stopGroup: an exit before it is a crash, and says so on stderr. */
  stopping: boolean;
  /** It exited without being stopped. */
  crashed: boolean;
}

function spawnWrangler(opts: Required<Pick<DevServerOptions, "vars" | "cwd">>, port: number, persistDir: string, envFile: string | undefined, inspector: boolean): Running {
  const varArgs = Object.entries(opts.vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]);
  const args = [
    WRANGLER_BIN, "dev",
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--persist-to", persistDir,
    ...(envFile === undefined ? [] : ["--env-file", envFile]),
    "--show-interactive-dev-session=false",
    ...varArgs,
  ];
  // detached: a new process group, so stop() reaches workerd too.
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: wranglerEnv(persistDir, inspector),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error("wrangler dev did not start");
  const pgid = child.pid;
  liveGroups.set(pgid, child);
  let tail = "";
  const keep = (data: Buffer) => (tail = (tail + stripVTControlCharacters(data.toString("utf8"))).slice(-OUTPUT_TAIL_CHARS));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const running: Running = { child, pgid, exited: Promise.resolve(), output: () => tail, stopping: false, crashed: false };
  running.exited = new Promise<void>((done) =>
    child.once("exit", (code, signal) => {
      // A shared server dying mid-run fails every later test with "connection refused"; this says why.
      if (!running.stopping) {
        running.crashed = true;
        process.stderr.write(`wrangler dev on port ${port} exited on its own (${code ?? signal}). Last output:\n${tail}\n`);
      }
      done();
    }),
  );
  return running;
}

async function waitForHealth(running: Running, healthUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null || running.child.signalCode !== null) {
      throw new Error(`wrangler dev exited (${running.child.exitCode ?? running.child.signalCode}) before ${healthUrl} answered:\n${running.output()}`);
    }
    try {
      const res = await fetch(healthUrl, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(150);
  }
  throw new Error(`wrangler dev: ${healthUrl} did not answer 200 within ${timeoutMs} ms. Last output:\n${running.output()}`);
}

/** SIGTERM to the group, SIGKILL after a grace period, then wait until every member is gone. */
async function stopGroup(running: Running): Promise<void> {
  running.stopping = true;
  killGroup(running.pgid, "SIGTERM");
  const deadline = Date.now() + STOP_GRACE_MS;
  while (groupAlive(running.pgid) && Date.now() < deadline) await sleep(50);
  if (groupAlive(running.pgid)) killGroup(running.pgid, "SIGKILL");
  await running.exited;
  while (groupAlive(running.pgid)) await sleep(20);
  liveGroups.delete(running.pgid);
}

/**
 * Applies D1 migrations, starts `wrangler dev` on 127.0.0.1 and resolves once
 * `GET /health` answers 200.
 *
 * @throws if wrangler exits early or is not healthy within `startTimeoutMs` (the message holds its last output)
 */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  // A request that fails inside wrangler's proxy must not take the shared server down with it.
  fixWrangler(join(dirname(WRANGLER_BIN), ".."));
  const cwd = opts.cwd ?? REPO_ROOT;
  const port = opts.port ?? (await freePort());
  const ownsPersistDir = opts.persistDir === undefined;
  const persistDir = opts.persistDir ?? mkdtempSync(join(tmpdir(), "hermes-edge-dev-"));
  mkdirSync(persistDir, { recursive: true });
  const envFile = join(persistDir, "empty.env");
  writeFileSync(envFile, "");
  const url = `http://127.0.0.1:${port}`;
  const healthUrl = `${url}${opts.healthPath ?? "/health"}`;
  const timeoutMs = opts.startTimeoutMs ?? 60_000;

  const removeOwnDir = () => ownsPersistDir && rmSync(persistDir, { recursive: true, force: true });

  const launch = async (): Promise<Running> => {
    // readDotEnv starts wrangler as plain `wrangler dev` does: the checkout's .env alone decides about the inspector.
    const inspector = opts.inspector ?? opts.readDotEnv === true;
    const running = spawnWrangler({ vars: opts.vars, cwd }, port, persistDir, opts.readDotEnv ? undefined : envFile, inspector);
    try {
      await waitForHealth(running, healthUrl, timeoutMs);
      return running;
    } catch (error) {
      await stopGroup(running);
      throw error;
    }
  };

  let current: Running | undefined;
  try {
    if (opts.migrate !== false) await migratePersistDir(cwd, opts.database ?? "hermes-edge", persistDir);
    current = await launch();
  } catch (error) {
    removeOwnDir();
    throw error;
  }
  const server: DevServer = {
    url,
    wsUrl: `ws://127.0.0.1:${port}/acp`,
    port,
    persistDir,
    pid: current.pgid,
    async stop() {
      if (current) await stopGroup(current);
      current = undefined;
      removeOwnDir();
    },
    async restart() {
      if (current) await stopGroup(current);
      current = undefined;
      current = await launch();
      server.pid = current.pgid;
    },
    async ensureRunning() {
      if (!current?.crashed) return;
      process.stderr.write(`wrangler dev on port ${port} is started again after it exited on its own\n`);
      await server.restart();
    },
    output: () => current?.output() ?? "",
  };
  return server;
}
