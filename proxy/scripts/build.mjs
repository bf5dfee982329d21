/**
 * Builds dist/cli.js, the package's bin: src/ and the workspace package
 * @hermes-edge/protocol (and the SDK code it uses) bundled into one ES module,
 * so the packed tarball needs nothing from the workspace. `ws` and `zod` stay
 * dependencies, installed from the registry like any package's.
 */
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = `${root}dist`;
const outfile = `${dist}/cli.js`;
// Built beside it and renamed over it: a proxy another process starts meanwhile (the e2e tests run
// while the proxy tests rebuild it) finds the old file or the new one, never none.
const building = `${dist}/cli.js.${process.pid}.tmp`;

// Whatever an earlier build left (a tsc build emitted one file per module) would be packed too; another
// build's file in progress is left alone (one left by a build that died is gone after 10 minutes).
mkdirSync(dist, { recursive: true });
const inProgress = (entry) => {
  try {
    return entry.endsWith(".tmp") && Date.now() - statSync(`${dist}/${entry}`).mtimeMs < 10 * 60_000;
  } catch {
    return true; // renamed into place meanwhile
  }
};
for (const entry of readdirSync(dist)) if (entry !== "cli.js" && !inProgress(entry)) rmSync(`${dist}/${entry}`, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outfile: building,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["ws", "zod"],
  // The MCP SDK's stdio transport pulls in CommonJS (cross-spawn) that requires Node builtins.
  banner: { js: 'import { createRequire as __hermesCreateRequire } from "node:module"; const require = __hermesCreateRequire(import.meta.url);' },
  legalComments: "none",
  logLevel: "warning",
});
chmodSync(building, 0o755);
renameSync(building, outfile);
