/**
 * `.dev.vars`, the local secrets file `wrangler dev` reads. Created by
 * `npm start` when missing; later runs only ever append a missing
 * `HERMES_ADMIN_TOKEN`, never change what is there.
 * @module
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = line.match(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/);
    if (match) vars[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1");
  }
  return vars;
}

export function readDevVars(path: string): Record<string, string> | undefined {
  return existsSync(path) ? parseDevVars(readFileSync(path, "utf8")) : undefined;
}

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString("hex");
}

export interface EnsureResult {
  created: boolean;
  addedAdminToken: boolean;
}

/** Creates `.dev.vars` with a local token and an admin token, or adds the admin token to an existing one. */
export function ensureDevVars(path: string): EnsureResult {
  if (!existsSync(path)) {
    writeFileSync(
      path,
      [
        "# Local secrets for `wrangler dev` (not committed). Created by `npm start`.",
        `HERMES_EDGE_TOKENS=local:${randomSecret()}`,
        "# Guards /v1/admin/* (npm run keys uses it).",
        `HERMES_ADMIN_TOKEN=${randomSecret()}`,
        "# Point the agent at a model (any OpenAI-compatible API):",
        "# OPENAI_API_KEY=sk-...",
        "# OPENAI_BASE_URL=https://api.openai.com/v1",
        "# HERMES_MODEL=gpt-4o-mini",
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    return { created: true, addedAdminToken: true };
  }
  const text = readFileSync(path, "utf8");
  if (parseDevVars(text).HERMES_ADMIN_TOKEN) return { created: false, addedAdminToken: false };
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  appendFileSync(path, `${separator}# Guards /v1/admin/* (npm run keys uses it). Added by \`npm start\`.\nHERMES_ADMIN_TOKEN=${randomSecret()}\n`);
  return { created: false, addedAdminToken: true };
}
