/**
 * `npm run deploy` against a fake `wrangler` on PATH that records its
 * arguments and stdin and answers like wrangler 4.86. Cloudflare's API cannot
 * be reached from here, so the command plan is what these tests check: first
 * run, re-run, not logged in. The dry-run bundle is built by the real wrangler
 * in deploy-dry-run.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { newProject, removeScratch, REPO_ROOT, runDeploy, type Project } from "./deploy-harness.js";

afterAll(removeScratch);

const PLACEHOLDER = "00000000-0000-4000-8000-000000000000";
const MODEL_KEY = "sk-test-model-key-123";

const argvOf = (calls: { argv: string[] }[]) => calls.map((c) => c.argv.join(" "));

const FIRST_RUN = [
  "whoami --json",
  "d1 list --json",
  "d1 create hermes-edge",
  "d1 migrations apply hermes-edge --remote",
  "secret list --format json",
  "secret put OPENAI_API_KEY",
  "secret put HERMES_ADMIN_TOKEN",
  "deploy",
];

async function firstRun(project: Project) {
  return runDeploy(project, [], { stdin: `${MODEL_KEY}\n` });
}

function adminTokenIn(stdout: string): string {
  return stdout.match(/Admin token \(shown only now[^\n]*\n\s+(\S+)/)![1]!;
}

describe("npm run deploy (fake wrangler: Cloudflare's API is not reachable from here)", () => {
  it("first run: creates the database, writes its id, migrates, sets both secrets from stdin and generated, deploys and prints the wss URL and next steps", async () => {
    const project = newProject();
    const run = await firstRun(project);
    expect(run.code, run.stderr).toBe(0);
    expect(argvOf(run.calls)).toEqual(FIRST_RUN);

    const state = project.state();
    const db = state.databases[0]!;
    expect(project.toml()).toContain(`database_id = "${db.uuid}"`);
    expect(project.toml()).not.toContain(PLACEHOLDER);
    expect(state.appliedMigrations.length).toBeGreaterThan(0);
    expect(state.worker.deploys).toBe(1);

    // Secrets arrive on wrangler's stdin, never in its arguments.
    const adminToken = adminTokenIn(run.stdout);
    expect(adminToken).toMatch(/^[0-9a-f]{64}$/);
    expect(state.worker.secrets).toEqual({ OPENAI_API_KEY: MODEL_KEY, HERMES_ADMIN_TOKEN: adminToken });
    expect(run.calls.find((c) => c.argv.includes("OPENAI_API_KEY"))!.stdin).toBe(MODEL_KEY);
    for (const call of run.calls) expect(call.argv.join(" ")).not.toMatch(new RegExp(`${MODEL_KEY}|${adminToken}`));
    expect(run.stderr).not.toContain(MODEL_KEY);

    expect(run.stdout).toContain("WebSocket URL: wss://hermes-edge.ada.workers.dev/acp");
    expect(run.stdout).toContain("npm run keys -- create --tenant <team>");
    expect(run.stdout).toContain("--url https://hermes-edge.ada.workers.dev");
    expect(run.stdout).toContain(`node ${REPO_ROOT}/proxy/dist/cli.js --setup`);
    expect(run.stdout).toContain("npx -y hermes-edge-proxy --setup");
  });

  it("re-run: creates nothing, keeps the secrets, migrates and deploys again", async () => {
    const project = newProject();
    await firstRun(project);
    const toml = project.toml();
    const secrets = project.state().worker.secrets;
    const again = await runDeploy(project, []);
    expect(again.code, again.stderr).toBe(0);
    expect(argvOf(again.calls)).toEqual(["whoami --json", "d1 migrations apply hermes-edge --remote", "secret list --format json", "deploy"]);
    expect(project.toml()).toBe(toml);
    expect(project.state().worker.secrets).toEqual(secrets);
    expect(project.state().databases).toHaveLength(1);
    expect(again.stderr).toContain("OPENAI_API_KEY is set (kept)");
    expect(again.stdout).toContain("Admin token: unchanged");
    expect(again.stdout).not.toContain(secrets.HERMES_ADMIN_TOKEN);
  });

  it("re-run with --rotate-admin-token replaces only the admin token and shows the new one", async () => {
    const project = newProject();
    const first = await firstRun(project);
    const rotated = await runDeploy(project, ["--rotate-admin-token"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(argvOf(rotated.calls)).toEqual([
      "whoami --json",
      "d1 migrations apply hermes-edge --remote",
      "secret list --format json",
      "secret put HERMES_ADMIN_TOKEN",
      "deploy",
    ]);
    const token = adminTokenIn(rotated.stdout);
    expect(token).not.toBe(adminTokenIn(first.stdout));
    expect(project.state().worker.secrets).toEqual({ OPENAI_API_KEY: MODEL_KEY, HERMES_ADMIN_TOKEN: token });
  });

  it("not logged in: says how to log in and runs nothing else", async () => {
    const project = newProject();
    project.update((s) => (s.loggedIn = false));
    const run = await runDeploy(project, [], { stdin: MODEL_KEY });
    expect(run.code).toBe(1);
    expect(argvOf(run.calls)).toEqual(["whoami --json"]);
    expect(run.stderr).toContain("You are not logged in to Cloudflare.");
    expect(run.stderr).toContain("npx wrangler login");
    expect(run.stderr).toContain("CLOUDFLARE_API_TOKEN");
    expect(project.toml()).toContain(PLACEHOLDER);
  });

  it("reuses a database an interrupted first run created instead of creating it twice", async () => {
    const project = newProject();
    const uuid = "6f1c2a9e-2b7d-4d5e-9a51-0c3b8e7f1a22";
    project.update((s) => s.databases.push({ uuid, name: "hermes-edge" }));
    const run = await firstRun(project);
    expect(run.code, run.stderr).toBe(0);
    expect(argvOf(run.calls)).not.toContain("d1 create hermes-edge");
    expect(project.toml()).toContain(`database_id = "${uuid}"`);
  });

  it("takes OPENAI_API_KEY and HERMES_ADMIN_TOKEN from the environment", async () => {
    const project = newProject();
    const run = await runDeploy(project, [], { env: { OPENAI_API_KEY: "sk-from-env", HERMES_ADMIN_TOKEN: "admin-from-env" } });
    expect(run.code, run.stderr).toBe(0);
    expect(project.state().worker.secrets).toEqual({ OPENAI_API_KEY: "sk-from-env", HERMES_ADMIN_TOKEN: "admin-from-env" });
    expect(run.stderr).toContain("OPENAI_API_KEY from environment");
  });

  it("stops before deploying when no model key is given", async () => {
    const project = newProject();
    const run = await runDeploy(project, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("OPENAI_API_KEY is not set on the Worker and none was given");
    expect(argvOf(run.calls)).not.toContain("deploy");
    expect(project.state().worker.secrets).toEqual({});
  });

  it("asks which account when the login has several and none is chosen", async () => {
    const project = newProject();
    project.update((s) => s.accounts.push({ id: "fedcba9876543210fedcba9876543210", name: "Work" }));
    const run = await firstRun(project);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("say which one with CLOUDFLARE_ACCOUNT_ID=<id>");
    expect(run.stderr).toContain("fedcba9876543210fedcba9876543210  Work");
    expect(argvOf(run.calls)).toEqual(["whoami --json"]);
    const chosen = await runDeploy(project, [], { stdin: MODEL_KEY, env: { CLOUDFLARE_ACCOUNT_ID: "fedcba9876543210fedcba9876543210" } });
    expect(chosen.code, chosen.stderr).toBe(0);
  });

  it("--dry-run lists exactly the commands a first run makes, runs only the bundle build, and changes nothing", async () => {
    const project = newProject();
    const dry = await runDeploy(project, ["--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = [...dry.stdout.matchAll(/^\s+\d+\. wrangler (.+?)\s{2,}/gm)].map((m) => m[1]);
    expect(planned).toEqual(FIRST_RUN);
    expect(argvOf(dry.calls)).toEqual([expect.stringMatching(/^deploy --dry-run --outdir \S+hermes-edge-bundle-\S+$/)]);
    expect(project.toml()).toContain(PLACEHOLDER);
    expect(project.state().worker.exists).toBe(false);
    expect(dry.stdout).toMatch(/Bundle: .*gzip .*: OK/);
  });

  it("--dry-run fails above --max-gzip-bytes", async () => {
    const project = newProject();
    project.update((s) => (s.bundleBytes = 50_000));
    const dry = await runDeploy(project, ["--dry-run", "--max-gzip-bytes", "100"]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("TOO LARGE");
    expect(dry.stderr).toMatch(/the gzipped bundle \(\d+ bytes\) is above the limit of 100 bytes/);
  });

  it("rejects unknown flags and a bad --max-gzip-bytes, and never takes secrets as flags", async () => {
    const project = newProject();
    for (const args of [["--openai-api-key", "sk-x"], ["--max-gzip-bytes", "lots"], ["--max-gzip-bytes", "-5"]]) {
      const run = await runDeploy(project, args);
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.calls).toEqual([]);
    }
    const help = await runDeploy(project, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: npm run deploy");
  });
});
