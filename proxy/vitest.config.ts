import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The proxy's own test project, in Node (not workerd). Run from the repo root:
//   npx vitest run --config proxy/vitest.config.ts
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: {
    name: "proxy",
    environment: "node",
    include: ["test/**/*.test.ts"],
    // Integration tests spawn dist/cli.js; build it once before any test runs.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The machines have 2 cores and every integration test runs a child process.
    maxWorkers: 2,
    // Its own group in the root run (see ../vitest.config.ts): after unit and workers, before e2e.
    sequence: { groupOrder: 2 },
  },
});
