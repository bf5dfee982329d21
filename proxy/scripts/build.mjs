/**
 * Builds dist/cli.js, the package's bin: src/ and the workspace package
 * @hermes-edge/protocol (and the SDK code it uses) bundled into one ES module,
 * so the packed tarball needs nothing from the workspace. `ws` and `zod` stay
 * dependencies, installed from the registry like any package's.
 */
import { chmodSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outfile = `${root}dist/cli.js`;

// Whatever an earlier build left (a tsc build emitted one file per module) would be packed too.
rmSync(`${root}dist`, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outfile,
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
chmodSync(outfile, 0o755);
