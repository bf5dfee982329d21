/**
 * `npm start`: everything a first local run needs. Creates `.dev.vars` with a
 * random token if it is missing (never overwrites it), applies the local D1
 * migrations, starts `wrangler dev` on 127.0.0.1:8787 (which builds the web
 * client first, see wrangler.toml's [build]) and says how to connect.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const varsPath = `${root}.dev.vars`;
const host = "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);

function ensureDevVars(): void {
  if (existsSync(varsPath)) return;
  const token = randomBytes(24).toString("hex");
  writeFileSync(
    varsPath,
    [
      "# Local secrets for `wrangler dev` (not committed). Created by `npm start`.",
      `HERMES_EDGE_TOKENS=local:${token}`,
      "# Point the agent at a model (any OpenAI-compatible API):",
      "# OPENAI_API_KEY=sk-...",
      "# OPENAI_BASE_URL=https://api.openai.com/v1",
      "# HERMES_MODEL=gpt-4o-mini",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  console.error(`created .dev.vars with a new local token`);
}

function readVars(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(varsPath, "utf8").split("\n")) {
    const match = line.match(/^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/);
    if (match) vars[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

function applyMigrations(): void {
  const result = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "hermes-edge", "--local"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (result.status !== 0) {
    console.error("applying the local D1 migrations failed; see the output above");
    process.exit(result.status ?? 1);
  }
}

async function waitForHealth(): Promise<boolean> {
  for (let i = 0; i < 120; i++) {
    try {
      const res = await fetch(`http://${host}:${port}/health`);
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

function banner(vars: Record<string, string>): string {
  const token = (vars.HERMES_EDGE_TOKENS ?? "").split(",")[0]?.split(":").slice(1).join(":") ?? "";
  const ws = `ws://${host}:${port}/acp`;
  const model = vars.OPENAI_API_KEY
    ? `model: ${vars.HERMES_MODEL ?? "gpt-4o-mini"} at ${vars.OPENAI_BASE_URL ?? "https://api.openai.com/v1"}`
    : "model: none configured yet — add OPENAI_API_KEY to .dev.vars and restart";
  return [
    "",
    "hermes-edge is running",
    `  web client    : http://${host}:${port}/  (sign in with the token)`,
    `  WebSocket URL : ${ws}`,
    `  token         : ${token}`,
    `  ${model}`,
    "",
    "Point an editor at it (Zed settings.json → agent_servers):",
    `  "hermes-edge": { "type": "custom", "command": "npx", "args": ["hermes-edge-proxy", "--url", "${ws}"],`,
    `                   "env": { "HERMES_EDGE_TOKEN": "${token}" } }`,
    `Check it: npx hermes-edge-proxy --check --url ${ws} --token ${token}`,
    "",
  ].join("\n");
}

ensureDevVars();
applyMigrations();
const wrangler = spawn("npx", ["wrangler", "dev", "--ip", host, "--port", String(port)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code) => process.exit(code ?? 0));
if (await waitForHealth()) console.error(banner(readVars()));
else console.error(`wrangler dev did not answer on http://${host}:${port}/health within 60 s`);
