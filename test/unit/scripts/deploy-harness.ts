/**
 * Runs `scripts/deploy.ts` as `npm run deploy` does (built for plain node, see
 * bundled-script.ts), in a scratch copy of
 * the project's wrangler.toml, with a fake `wrangler` first on PATH (see
 * fake-wrangler/fake-wrangler.mjs: Cloudflare's API cannot be reached from
 * here) and an environment that holds nothing of the developer's.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledScript } from "../../support/bundled-script.js";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const FAKE_BIN = join(dirname(fileURLToPath(import.meta.url)), "fake-wrangler");

const scratchDirs: string[] = [];

function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Removes every directory this harness made; call from afterAll. */
export function removeScratch(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface FakeState {
  loggedIn: boolean;
  email: string;
  accounts: { id: string; name: string }[];
  subdomain: string;
  databases: { uuid: string; name: string }[];
  pendingMigrations: string[];
  appliedMigrations: string[];
  worker: { exists: boolean; secrets: Record<string, string>; deploys: number };
  calls: { argv: string[]; stdin?: string }[];
  bundleBytes?: number;
}

export interface Project {
  dir: string;
  statePath: string;
  state(): FakeState;
  update(patch: (s: FakeState) => void): void;
  toml(): string;
}

/** A fresh account: logged in, no database, no Worker; a copy of wrangler.toml with the placeholder id. */
export function newProject(): Project {
  const dir = scratch("hermes-deploy-");
  copyFileSync(join(REPO_ROOT, "wrangler.toml"), join(dir, "wrangler.toml"));
  const statePath = join(dir, "fake-wrangler-state.json");
  const initial: FakeState = {
    loggedIn: true,
    email: "ada@example.com",
    accounts: [{ id: "0123456789abcdef0123456789abcdef", name: "Ada's Account" }],
    subdomain: "ada",
    databases: [],
    pendingMigrations: readdirSync(join(REPO_ROOT, "migrations")).filter((f) => f.endsWith(".sql")),
    appliedMigrations: [],
    worker: { exists: false, secrets: {}, deploys: 0 },
    calls: [],
  };
  writeFileSync(statePath, JSON.stringify(initial));
  const state = () => JSON.parse(readFileSync(statePath, "utf8")) as FakeState;
  return {
    dir,
    statePath,
    state,
    update(patch) {
      const s = state();
      patch(s);
      writeFileSync(statePath, JSON.stringify(s));
    },
    toml: () => readFileSync(join(dir, "wrangler.toml"), "utf8"),
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The wrangler calls this run made. */
  calls: FakeState["calls"];
}

export async function runDeploy(
  project: Project | { dir: string; statePath?: string },
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; fake?: boolean } = {},
): Promise<RunResult> {
  const before = "state" in project ? project.state().calls.length : 0;
  const path = options.fake === false ? process.env.PATH! : `${FAKE_BIN}${delimiter}${process.env.PATH}`;
  // A home of its own: no wrangler login, config or logs of the developer's are read or written.
  const home = scratch("hermes-deploy-home-");
  const child = spawn(process.execPath, [bundledScript("scripts/deploy.ts"), ...args], {
    cwd: project.dir,
    env: {
      PATH: path,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      NO_COLOR: "1",
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_SEND_ERROR_REPORTS: "false",
      ...(project.statePath ? { FAKE_WRANGLER_STATE: project.statePath } : {}),
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.stdin ?? "");
  const code = await new Promise<number>((done) => child.once("close", (c) => done(c ?? 1)));
  const calls = "state" in project ? project.state().calls.slice(before) : [];
  return { code, stdout, stderr, calls };
}
