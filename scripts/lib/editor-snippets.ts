/**
 * How an editor starts the proxy, printed by `npm start` and `npm run deploy`.
 * From a clone the proxy runs as `node <clone>/proxy/dist/cli.js`: `npx
 * hermes-edge-proxy` only works once the package is published (until then
 * npx fails, or fetches whatever the registry has under that name).
 * @module
 */
import { join } from "node:path";

export interface ProxyCommand {
  command: string;
  args: string[];
}

export function cloneProxy(root: string): ProxyCommand {
  return { command: "node", args: [join(root, "proxy", "dist", "cli.js")] };
}

export const PUBLISHED_PROXY: ProxyCommand = { command: "npx", args: ["-y", "hermes-edge-proxy"] };

export function shellLine(proxy: ProxyCommand, extra: string[] = []): string {
  return [proxy.command, ...proxy.args, ...extra].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
}

/** The `agent_servers` entry of Zed's settings.json. */
export function zedSnippet(proxy: ProxyCommand, extraArgs: string[] = [], env?: Record<string, string>): string {
  const entry = { type: "custom", command: proxy.command, args: [...proxy.args, ...extraArgs], ...(env ? { env } : {}) };
  return JSON.stringify({ agent_servers: { "hermes-edge": entry } }, null, 2);
}

export function indent(text: string, spaces: number): string {
  return text
    .split("\n")
    .map((line) => " ".repeat(spaces) + line)
    .join("\n");
}
