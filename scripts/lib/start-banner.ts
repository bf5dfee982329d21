/**
 * What `npm start` prints once the service answers: the URL, the local token,
 * an editor snippet that works from this clone (and the npx one for the
 * published proxy, shown apart), and how to make a managed key.
 * @module
 */
import { cloneProxy, indent, PUBLISHED_PROXY, shellLine, zedSnippet } from "./editor-snippets.js";

export interface BannerInput {
  root: string;
  wsUrl: string;
  vars: Record<string, string>;
}

/** The first bootstrap token of `HERMES_EDGE_TOKENS=tenant:token,…`. */
export function firstToken(raw: string | undefined): { tenant: string; token: string } | undefined {
  const pair = (raw ?? "").split(",")[0]?.trim() ?? "";
  const colon = pair.indexOf(":");
  return colon > 0 && colon < pair.length - 1 ? { tenant: pair.slice(0, colon), token: pair.slice(colon + 1) } : undefined;
}

export function startBanner({ root, wsUrl, vars }: BannerInput): string {
  const bootstrap = firstToken(vars.HERMES_EDGE_TOKENS);
  const token = bootstrap?.token ?? "<a key from npm run keys -- create>";
  const model = vars.OPENAI_API_KEY
    ? `model: ${vars.HERMES_MODEL ?? "gpt-4o-mini"} at ${vars.OPENAI_BASE_URL ?? "https://api.openai.com/v1"}`
    : "model: none configured yet — add OPENAI_API_KEY to .dev.vars and restart";
  const clone = cloneProxy(root);
  // The keys command defaults to port 8787: on another PORT it must be told where the service is.
  const base = wsUrl.replace(/^ws/, "http").replace(/\/acp$/, "");
  const keysUrl = base === "http://127.0.0.1:8787" ? "" : ` --url ${base}`;
  return [
    "",
    "hermes-edge is running",
    `  web client    : ${wsUrl.replace(/^ws/, "http").replace(/\/acp$/, "/")}  (sign in with the token)`,
    `  WebSocket URL : ${wsUrl}`,
    `  token         : ${bootstrap ? `${token}  (tenant "${bootstrap.tenant}", HERMES_EDGE_TOKENS in .dev.vars)` : "none in .dev.vars: create a key (below)"}`,
    `  ${model}`,
    "",
    "Zed settings.json, from this clone:",
    indent(zedSnippet(clone, ["--url", wsUrl], { HERMES_EDGE_TOKEN: token }), 2),
    `Once hermes-edge-proxy is published, the same with "command": "npx", "args": ${JSON.stringify([...PUBLISHED_PROXY.args, "--url", wsUrl])}.`,
    `Check it: HERMES_EDGE_TOKEN=${token} ${shellLine(clone, ["--check", "--url", wsUrl])}`,
    "",
    "Managed keys (one per person, revocable):",
    `  npm run keys -- create --tenant ${bootstrap?.tenant ?? "local"} --label "my laptop"${keysUrl}`,
    `  npm run keys -- list${keysUrl}        npm run keys -- revoke <key id>${keysUrl}`,
    "",
  ].join("\n");
}
