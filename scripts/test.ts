/**
 * `npm test`: the type check and every test project, as four lanes that run at
 * once. One vitest run takes its project groups one after another, and most of
 * the time one of them waits (on `wrangler dev`, Chromium, a subprocess) while a
 * core idles; side by side, the lanes keep both cores of a CI machine busy.
 *
 * - `checks`: `npm run typecheck`, then the Node projects (unit, protocol, proxy, subprocess);
 * - `workers`: the Worker inside workerd (workers, then workers-alone);
 * - `e2e`: `wrangler dev` with the SDK client and the proxy;
 * - `browser`: the web client in Chromium.
 *
 * Each line a lane prints goes out as it comes, after the lane's name. The exit
 * code is non-zero when any lane failed; the summary at the end says which.
 * `npm test -- <vitest arguments>` (a file filter, `--project x`) runs the type
 * check and then one `vitest run` with those arguments, as before.
 * @module
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { killGroup } from "./lib/process-group.js";

interface Lane {
  name: string;
  /** Commands run one after another; the lane stops at the first that fails. */
  commands: string[][];
}

const vitest = (...projects: string[]) => ["npx", "vitest", "run", ...projects.flatMap((p) => ["--project", p])];

const LANES: Lane[] = [
  { name: "checks", commands: [["npm", "run", "--silent", "typecheck"], vitest("unit", "protocol", "proxy", "subprocess")] },
  // Two runs: one run of both projects twice hung, idle, after the last file of the first (vitest-pool-workers 0.15.1).
  { name: "workers", commands: [vitest("workers"), vitest("workers-alone")] },
  { name: "e2e", commands: [vitest("e2e")] },
  { name: "browser", commands: [vitest("browser")] },
];

/**
 * The lanes write to a pipe, so they would drop colours on a terminal; to a log, they keep none.
 * Either variable set at all decides by itself (vitest takes FORCE_COLOR=0 as "on").
 */
const COLOUR: Record<string, string> =
  process.env["FORCE_COLOR"] !== undefined || process.env["NO_COLOR"] !== undefined ? {} : process.stdout.isTTY ? { FORCE_COLOR: "1" } : { NO_COLOR: "1" };

/** A command that runs longer has hung (the slowest lane takes about 6 minutes): it is stopped and fails its lane. */
const COMMAND_LIMIT_MS = 20 * 60_000;

/** The process groups of the commands running now (each its own, so a stop reaches vitest's workers too). */
const running = new Set<number>();
/**
 * Ctrl+C reaches only this process (the lanes have groups of their own): it goes on to every lane,
 * and each vitest stops its workers and servers itself, as it does in a terminal. A second one kills.
 */
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const pgid of running) killGroup(pgid, interrupted ? "SIGKILL" : signal);
    if (interrupted) process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    interrupted = true;
  });
}

function run(command: string[], prefix: string): Promise<number> {
  return new Promise((resolve) => {
    const [file, ...args] = command as [string, ...string[]];
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...COLOUR }, detached: true });
    const pgid = child.pid!;
    running.add(pgid);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${prefix}${line}\n`));
    }
    const limit = setTimeout(() => {
      process.stdout.write(`${prefix}${command.join(" ")}: still running after ${COMMAND_LIMIT_MS / 60_000} minutes; stopped\n`);
      killGroup(pgid, "SIGKILL");
    }, COMMAND_LIMIT_MS);
    child.on("exit", () => running.delete(pgid)); // its id may go to another process after this
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function runLane(lane: Lane, width: number): Promise<{ lane: Lane; code: number; seconds: number }> {
  const started = Date.now();
  const prefix = `${lane.name.padEnd(width)} | `;
  let code = 0;
  for (const command of lane.commands) {
    code = await run(command, prefix);
    if (code !== 0) break;
  }
  return { lane, code, seconds: Math.round((Date.now() - started) / 1000) };
}

async function main(args: string[]): Promise<number> {
  if (args.length > 0) {
    const typecheck = await run(["npm", "run", "--silent", "typecheck"], "");
    return typecheck !== 0 ? typecheck : run(["npx", "vitest", "run", ...args], "");
  }
  const width = Math.max(...LANES.map((l) => l.name.length));
  const results = await Promise.all(LANES.map((lane) => runLane(lane, width)));
  process.stdout.write("\n");
  for (const { lane, code, seconds } of results) process.stdout.write(`${lane.name.padEnd(width)}  ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds} s\n`);
  return results.some((r) => r.code !== 0) ? 1 : 0;
}

// Exit at once: a lane's stray handle (a process that outlived its vitest) must not keep `npm test` open.
process.exit(await main(process.argv.slice(2)));
