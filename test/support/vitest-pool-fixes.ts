/**
 * Two fixes to `@cloudflare/vitest-pool-workers` 0.15.1, applied to its files in
 * node_modules before the workers projects start a runtime. Both are fixed upstream
 * in the package's successor, `@cloudflare/vitest-plugin` (1.4.5 and later); this
 * module goes when the project moves to it.
 *
 * - **A proxy per object.** Each Durable Object and entrypoint instance the pool
 *   constructs wraps its class's prototype in one more `Proxy`, so every property
 *   read on an instance walks one trap per instance made before it. Within one file
 *   that is hundreds of traps; in a runtime that lives on from file to file
 *   (`isolate: false`) it took 92% of workerd's CPU, and the workers project three
 *   times as long (400 s against 130 s).
 * - **A transport wrapper per file.** The pool wraps the module runner's transport
 *   again for every test file a runtime runs, each wrapper a round trip to its runner
 *   object, so each import goes through one more hop per earlier file.
 *
 * Applied as `scripts/lib/package-fixes.ts` applies any: exactly, idempotently, and
 * refusing a version they do not fit.
 *
 * @module
 */
import { applyFixes, type PackageFix } from "../../scripts/lib/package-fixes.js";

const FIXES: PackageFix[] = [
  {
    file: "dist/worker/lib/cloudflare/test-internal.mjs",
    before: "\tfunction Class(...args) {\n\t\tClass.prototype = new Proxy(Class.prototype, {",
    after: "\tlet proxyInstalled = false; // hermes-edge: one proxy per class, not per instance\n\tfunction Class(...args) {\n\t\tif (!proxyInstalled && (proxyInstalled = true)) Class.prototype = new Proxy(Class.prototype, {",
  },
  {
    file: "dist/worker/index.mjs",
    before: "\t\t\t\tconst runner = moduleRunner;\n\t\t\t\tif (runner.transport?.invoke) {",
    after: "\t\t\t\tconst runner = moduleRunner;\n\t\t\t\tif (runner.transportWrapped) return; // hermes-edge: wrap once, not per file\n\t\t\t\trunner.transportWrapped = true;\n\t\t\t\tif (runner.transport?.invoke) {",
  },
];

/** Applies the fixes to the pool package in `poolDir` (idempotent); throws on a version they do not fit. */
export function fixVitestPool(poolDir: string): void {
  applyFixes(poolDir, FIXES, "test/support/vitest-pool-fixes.ts");
}
