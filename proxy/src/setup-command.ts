/**
 * The command that runs `--setup` for the copy of the proxy that is running:
 * `npx hermes-edge-proxy --setup` when installed from the registry, but
 * `node <clone>/proxy/dist/cli.js --setup` from a clone, where npx finds no
 * such package (README's clone path).
 * @module
 */
import { fileURLToPath } from "node:url";

export function setupCommand(moduleUrl: string = import.meta.url): string {
  const path = fileURLToPath(moduleUrl);
  if (/[\\/]node_modules[\\/]/.test(path)) return "npx hermes-edge-proxy --setup";
  // Bundled, this module is dist/cli.js itself; from src/ (tests), ../dist/cli.js is the built CLI.
  const cli = fileURLToPath(new URL("../dist/cli.js", moduleUrl));
  return `node ${/\s/.test(cli) ? JSON.stringify(cli) : cli} --setup`;
}
