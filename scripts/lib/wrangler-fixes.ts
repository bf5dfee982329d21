/**
 * One fix to wrangler 4.86.0's `wrangler dev`, applied to its files in
 * node_modules by `npm start` and by the tests before they start it.
 *
 * When one request that wrangler's ProxyWorker forwards to the Worker fails
 * ("Network connection lost": a client that went away mid-request, a browser
 * navigating while its page still loads), the ProxyWorker reports it and
 * wrangler treats the report as fatal: `wrangler dev` exits with an empty
 * `✘ [ERROR]`, and every request after it is refused. The failed request has
 * already been answered with its error; with the fix wrangler says so in one
 * warning and keeps serving. Upstream: cloudflare/workers-sdk#15317 and #15451 (open).
 * @module
 */
import { applyFixes, type PackageFix } from "./package-fixes.js";

const CONTROLLER_ERRORS = `} else if (event.source === "ProxyController" && (event.reason.startsWith("Failed to send message to")`;

export const WRANGLER_FIXES: readonly PackageFix[] = [
  {
    file: "wrangler-dist/cli.js",
    before: CONTROLLER_ERRORS,
    after:
      `} else if (event.source === "ProxyController" && event.reason === "Error inside ProxyWorker") { // hermes-edge: one request failed, not the server (workers-sdk#15317)\n` +
      "          logger.warn(`A request through wrangler dev's proxy failed (${event.cause?.message ?? \"no reason given\"}); wrangler dev goes on serving.`);\n" +
      `        ${CONTROLLER_ERRORS}`,
  },
];

/** Applies the fix to the wrangler package in `wranglerDir`; throws on a version it does not fit. */
export function fixWrangler(wranglerDir: string): void {
  applyFixes(wranglerDir, WRANGLER_FIXES, "scripts/lib/wrangler-fixes.ts");
}
