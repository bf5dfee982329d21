#!/usr/bin/env node
/**
 * Entry point of `hermes-edge-proxy`. stdout is reserved for ACP frames in
 * proxy mode, so everything human-readable goes to stderr except the output
 * of `--help`, `--version` and `--check`, which are run by people, not editors.
 * @module
 */
import { homedir } from "node:os";
import { parseCliArgs, UsageError, USAGE } from "./args.js";
import { Bridge } from "./bridge.js";
import { runCheck } from "./check.js";
import { ConfigError, configPath, readSavedConfig, resolveConfig, type SavedConfig } from "./config.js";
import { Credentials } from "./credentials.js";
import { createLogger, keepConsoleOffStdout, type Logger } from "./log.js";
import { runSetup } from "./setup.js";
import { UpstreamHost } from "./upstream-host.js";
import { upstreamCommands } from "./upstream-spec.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.js";

keepConsoleOffStdout();

async function main(): Promise<number> {
  const options = parseCliArgs(process.argv.slice(2));
  if (options.mode === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.mode === "version") {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return 0;
  }
  const log = createLogger(options.logLevel);
  const path = configPath(process.env, homedir());
  let saved: SavedConfig | undefined;
  try {
    saved = readSavedConfig(path);
  } catch (err) {
    // --setup exists to repair this file, so it only warns there.
    if (options.mode !== "setup") throw err;
    log.warn(err instanceof Error ? err.message : String(err));
  }
  const config = resolveConfig({ flags: options, env: process.env, saved, configPath: path });

  if (options.mode === "check") {
    return runCheck(config, options.headers, (line) => process.stdout.write(line + "\n"));
  }
  if (options.mode === "setup") {
    return runSetup({ current: config, headers: options.headers, input: process.stdin, prompt: (text) => process.stderr.write(text) });
  }

  log.info(`${PACKAGE_NAME} ${PACKAGE_VERSION} bridging stdio to ${config.url} (url from ${config.urlSource}, token from ${config.tokenSource})`);
  // `authenticate` after `logout` reads the saved config again: `--setup` may have just rewritten it.
  const upstreams = new UpstreamHost(upstreamCommands(options.upstreams, saved, path), log);
  process.once("exit", () => upstreams.stop());
  const credentials = new Credentials(() => resolveConfig({ flags: options, env: process.env, saved: readSavedConfig(path), configPath: path }), config);
  const bridge = new Bridge({
    credentials,
    headers: options.headers,
    giveUpAfterMs: options.giveUpAfterSeconds * 1000,
    log,
    input: process.stdin,
    output: process.stdout,
    cwd: process.cwd(),
    testDropAfterFrames: testHook(process.env, log, "HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES", (n) => `the connection will be dropped after ${n} frames from the service`),
    mcpCallTimeoutMs: testHook(process.env, log, "HERMES_EDGE_PROXY_TEST_MCP_CALL_TIMEOUT_MS", (n) => `stdio MCP calls time out after ${n} ms without progress`),
    upstreams,
  });
  // Whatever way the proxy ends, no MCP server it started outlives it.
  process.once("exit", () => bridge.mcp.killNow());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log.info(`${signal} received; shutting down`);
      void bridge.stop(0);
    });
  }
  return bridge.run();
}

/**
 * Test hooks, read once at startup; unset (the default), empty or not a
 * positive integer: off. `HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES=N` makes
 * the bridge cut its own WebSocket after N frames from the service, so
 * end-to-end tests can drop the connection mid-turn against a real service;
 * `HERMES_EDGE_PROXY_TEST_MCP_CALL_TIMEOUT_MS=N` shortens the stdio MCP
 * servers' call timeout (`mcpCallTimeouts`), so a test of it runs in seconds.
 */
function testHook(env: NodeJS.ProcessEnv, log: Logger, name: string, says: (n: number) => string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) {
    log.warn(`ignoring ${name}=${raw}: not a positive integer`);
    return undefined;
  }
  log.warn(`test hook on: ${says(n)}`);
  return n;
}

/** Exits only after stdout has flushed, so the last frames reach the editor. */
function exit(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

main().then(exit, (err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`${PACKAGE_NAME}: ${err.message}\n\n${USAGE}`);
    exit(2);
  } else if (err instanceof ConfigError) {
    process.stderr.write(`${PACKAGE_NAME}: ${err.message}\n`);
    exit(1);
  } else {
    process.stderr.write(`${PACKAGE_NAME}: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exit(1);
  }
});
