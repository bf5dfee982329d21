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
    // Longer than the waits in test/proxy-process.ts (WAIT_MS): a slow answer under load fails
    // on its own assertion, not on vitest's timeout.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The machines have 2 cores and every integration test runs a child process.
    maxWorkers: 2,
    // Its own group in the root run (see ../vitest.config.ts): after unit and workers, before e2e.
    sequence: { groupOrder: 2 },
  },
});
