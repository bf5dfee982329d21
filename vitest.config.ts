/**
 * The test projects, one command (`npm test`):
 * - `unit`: pure logic in Node (acp, agent, session helpers, test support).
 * - `subprocess`: unit-level tests that spawn subprocesses (deploy, wrangler dev), with real timeouts.
 * - `protocol`: the `@hermes-edge/protocol` package (envelope, errors, hermes
 *   extensions, reconnect tracker) in Node; it also bundles it for the browser.
 * - `workers`, `workers-alone`: the Worker and the three Durable Objects inside workerd,
 *   against the mock OpenAI-compatible server started here in Node.
 * - `e2e`: `wrangler dev` + the official SDK client (and the proxy) in Node.
 * - `proxy`: the stdio CLI against a fake service (its own config in proxy/).
 * - `browser`: the web client in real Chromium against `wrangler dev`.
 * `npm test` (scripts/test.ts) runs them as four `vitest run`s at once, one per lane; within
 * one run, the groups (`sequence.groupOrder`) go one after another.
 */
import { join } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { buildWebIfStale } from "./scripts/build-web.js";
import { hermeticWranglerConfig, wranglerAliases } from "./test/support/hermetic-wrangler-config.js";
import { startMockOpenAI } from "./test/support/mock-openai.js";
import { StallReporter } from "./test/support/stall-reporter.js";
import { fixVitestPool } from "./test/support/vitest-pool-fixes.js";
import { workerDependencies } from "./test/support/worker-dependencies.js";

export const TEST_TOKENS = "alpha:tok-alpha,beta:tok-beta,alpha/ada:tok-alpha-ada";
export const TEST_ADMIN_TOKEN = "admin-test-token";
export const TEST_TENANT_LIMITS = JSON.stringify({ maxConcurrentTurns: 64, maxConcurrentSubagents: 64, dailyTokens: 50_000_000 });

/**
 * Workers files that get a runtime of their own (project `workers-alone`). The rest (project `workers`)
 * share one runtime per pool worker, where sessions that earlier files left behind still run, so their
 * tests assert only on what they create themselves: their own sessions, keys, tenants.
 */
const ALONE_WORKERS_TESTS = [
  // Counts every D1 call and fetch the isolate makes during a turn; left-behind sessions' index touches would count.
  "test/workers/turn-budget.test.ts",
  // Fake timers replace the isolate's `setTimeout`: a left-behind session's timers would land on the fake clock,
  // and the test's advance would run them here, on that session's storage from this test's object (CI, stop 47).
  "test/workers/session-slots.test.ts",
];

/**
 * Unit-level files that spawn subprocesses (deploy's fake and real wrangler, the
 * `wrangler dev` harness): their own project, so the unit project stays fast.
 */
const SUBPROCESS_TESTS = [
  "test/unit/scripts/deploy.test.ts",
  "test/unit/scripts/deploy-dry-run.test.ts",
  "test/unit/scripts/bundle-budget.test.ts",
  "test/unit/support/wrangler-dev.test.ts",
  // issue 26: a 20,000-delta answer through `npm start` and plain `wrangler dev` (two wrangler starts, ~1-3 min)
  "test/unit/scripts/long-answer.test.ts",
  // npm test's lane runner, with commands that stall
  "test/unit/scripts/lanes.test.ts",
];

export default defineConfig(async () => {
  // wrangler.toml's [assets] directory must exist before the workers pool reads it. Built only when its
  // sources changed (scripts/lib/web-build-stamp.mjs): every lane's `vitest run` loads this config.
  await buildWebIfStale();
  fixVitestPool(join(import.meta.dirname, "node_modules/@cloudflare/vitest-pool-workers"));
  const mock = await startMockOpenAI();
  const migrations = await readD1Migrations("./migrations");
  const dependencies = workerDependencies(import.meta.dirname);
  /**
   * The Worker's projects in workerd. An isolated project starts a new runtime per file and imports the
   * Worker's module graph into it again (~5 s of CPU a file, ~20 s under load); `isolate: false` keeps one
   * runtime per pool worker, so storage and Durable Objects live on from file to file.
   */
  const workersProject = (name: string, { isolate, include, exclude }: { isolate: boolean; include?: string[]; exclude?: string[] }) => ({
    plugins: [
      cloudflareTest({
        // A copy of wrangler.toml with no `.dev.vars` beside it: a developer's file never reaches the tests.
        wrangler: { configPath: hermeticWranglerConfig(import.meta.dirname) },
        miniflare: {
          bindings: {
            OPENAI_BASE_URL: `${mock.url}/v1`,
            OPENAI_API_KEY: "test-key",
            HERMES_EDGE_TOKENS: TEST_TOKENS,
            HERMES_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
            // Files share one tenant object per tenant, and turns left running by earlier tests hold slots.
            HERMES_TENANT_LIMITS: TEST_TENANT_LIMITS,
            HERMES_COALESCE_MS: "0",
            HERMES_MAX_FRAME_BYTES: String(64 * 1024),
            MOCK_URL: mock.url,
            TEST_MIGRATIONS: migrations,
          },
        },
      }),
    ],
    // wrangler.toml's [alias] (ajv stubbed out), which the pool does not apply: the same modules as the deployed bundle.
    resolve: { alias: wranglerAliases(import.meta.dirname) },
    test: {
      name,
      isolate,
      sequence: { groupOrder: 1 },
      include: include ?? ["test/workers/**/*.test.ts"],
      exclude: [...(exclude ?? []), "**/node_modules/**"],
      setupFiles: ["./test/workers/apply-migrations.ts"],
      testTimeout: 20_000,
      // Each file's runtime loads the whole Worker graph; its npm packages, pre-bundled once, are most of it.
      deps: { optimizer: { ssr: { enabled: true, include: dependencies } } },
    },
  });
  return {
    test: {
      // A run that stalls says what it waits on (and `npm test` runs it again).
      reporters: ["default", new StallReporter()],
      projects: [
        "./proxy/vitest.config.ts",
        {
          test: {
            name: "unit",
            include: ["test/unit/**/*.test.ts"],
            exclude: [...SUBPROCESS_TESTS, "**/node_modules/**"],
            environment: "node",
            sequence: { groupOrder: 0 },
            // One module graph for all files: isolating each of ~100 files re-imported the SDKs per
            // file and took 126 s of a 136 s run on two cores; without it the project takes ~15 s.
            // The files keep no module state between them (fake timers and spies are undone in afterEach).
            isolate: false,
          },
        },
        {
          // Tests that spawn wrangler/npm-like subprocesses: real timeouts, one file at a time, so load cannot time them out.
          test: {
            name: "subprocess",
            include: SUBPROCESS_TESTS,
            environment: "node",
            sequence: { groupOrder: 5 },
            testTimeout: 60_000,
            hookTimeout: 60_000,
            fileParallelism: false,
          },
        },
        {
          // Not isolated either, for the same reason as unit.
          test: { name: "protocol", include: ["packages/protocol/**/*.test.ts"], environment: "node", sequence: { groupOrder: 0 }, isolate: false },
        },
        workersProject("workers", { isolate: false, exclude: ALONE_WORKERS_TESTS }),
        workersProject("workers-alone", { isolate: true, include: ALONE_WORKERS_TESTS }),
        {
          test: {
            name: "e2e",
            sequence: { groupOrder: 3 },
            include: ["test/e2e/**/*.test.ts"],
            environment: "node",
            // One process for all files, one after another, so most share one mock model and one `wrangler dev`
            // (test/e2e/e2e-service.ts) instead of starting their own: ~7 s of CPU a start on two cores.
            isolate: false,
            testTimeout: 90_000,
            hookTimeout: 90_000,
            // vitest's default of 1 s is too short for a turn on a loaded machine; a wait that ends sooner still ends then.
            expect: { poll: { timeout: 15_000 } },
            fileParallelism: false,
          },
        },
        {
          test: {
            name: "browser",
            sequence: { groupOrder: 4 },
            include: ["test/browser/**/*.test.ts"],
            environment: "node",
            testTimeout: 90_000,
            hookTimeout: 120_000,
            // As e2e: a turn, a render or a paint under load takes more than vitest's default 1 s.
            expect: { poll: { timeout: 15_000 } },
            fileParallelism: false,
            // One worker for all files, so they share one mock, `wrangler dev` and Chromium
            // (test/browser/support/shared-rig.ts): ~8 s of CPU a file on two cores otherwise.
            // Each file signs in as its own tenant and opens its own contexts and relay.
            isolate: false,
          },
        },
      ],
    },
  };
});
