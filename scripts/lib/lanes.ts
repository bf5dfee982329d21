/**
 * Test commands run as lanes side by side (`npm test`, scripts/test.ts): each
 * command in a process group of its own, each line it prints prefixed with its
 * lane's name, stopped when it stalls or runs past a limit.
 * @module
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { endedFailures, STALL_MARK } from "../../test/support/stall-reporter.js";
import { killGroup } from "./process-group.js";

export interface Lane {
  name: string;
  /** Commands run one after another; the lane stops at the first that fails. */
  commands: string[][];
}

export interface LaneResult {
  lane: Lane;
  code: number;
  seconds: number;
  /** Commands run again after a stall. */
  reruns: number;
}

/** How a command ended: its exit code, and whether it was stopped because it stalled. */
export interface Ran {
  code: number;
  stalled: boolean;
}

export interface RunOptions {
  /** Where the prefixed lines go. */
  write?: (text: string) => void;
  /** A command still running after this long has hung: it is stopped and fails. */
  limitMs?: number;
}

/** The slowest lane takes about 6 minutes. */
const COMMAND_LIMIT_MS = 20 * 60_000;

/**
 * The lanes write to a pipe, so they would drop colours on a terminal; to a log, they keep none.
 * Either variable set at all decides by itself (vitest takes FORCE_COLOR=0 as "on").
 */
const COLOUR: Record<string, string> =
  process.env["FORCE_COLOR"] !== undefined || process.env["NO_COLOR"] !== undefined ? {} : process.stdout.isTTY ? { FORCE_COLOR: "1" } : { NO_COLOR: "1" };

const stdout = (text: string) => void process.stdout.write(text);

/** The process groups of the commands running now (each its own, so a stop reaches vitest's workers too). */
const running = new Set<number>();
let interrupted = false;

/**
 * Ctrl+C reaches only this process (the lanes have groups of their own): it goes on to every lane,
 * and each vitest stops its workers and servers itself, as it does in a terminal. A second one kills.
 */
export function passOnInterrupts(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      for (const pgid of running) killGroup(pgid, interrupted ? "SIGKILL" : signal);
      if (interrupted) process.exit(128 + (signal === "SIGINT" ? 2 : 15));
      interrupted = true;
    });
  }
}

/**
 * Runs one command, its lines prefixed. A vitest run that reports a stall (test/support/stall-reporter.ts:
 * nothing started or ended for longer than any timeout it enforces) is stopped at once. So is one that
 * reports every file ended while the run itself did not: its outcome is its files' (0, or 1 if any failed).
 */
export function run(command: string[], prefix: string, { write = stdout, limitMs = COMMAND_LIMIT_MS }: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    let stalled = false;
    let ended: number | undefined;
    const [file, ...args] = command as [string, ...string[]];
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...COLOUR }, detached: true });
    const pgid = child.pid!;
    running.add(pgid);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        write(`${prefix}${line}\n`);
        if (!stalled && line.startsWith(STALL_MARK)) {
          stalled = true;
          write(`${prefix}${command.join(" ")}: stalled; stopped\n`);
          killGroup(pgid, "SIGKILL");
        }
        const failed = ended === undefined ? endedFailures(line) : undefined;
        if (failed !== undefined) {
          ended = failed;
          write(`${prefix}${command.join(" ")}: every file ended (${failed} failed) and the run did not; stopped\n`);
          killGroup(pgid, "SIGKILL");
        }
      });
    }
    const limit = setTimeout(() => {
      write(`${prefix}${command.join(" ")}: still running after ${Math.round(limitMs / 60_000)} minutes; stopped\n`);
      killGroup(pgid, "SIGKILL");
    }, limitMs);
    child.on("exit", () => running.delete(pgid)); // its id may go to another process after this
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      if (ended !== undefined) return resolve({ code: ended > 0 ? 1 : 0, stalled: false });
      resolve({ code: code ?? (signal ? 1 : 0), stalled });
    });
  });
}

/**
 * The lane's commands in turn. One that stalled runs once more: none of its tests had failed, the
 * pool had stopped running them. A failure never runs again, and a second stall fails the lane.
 */
export async function runLane(lane: Lane, width: number, options: RunOptions = {}): Promise<LaneResult> {
  const { write = stdout } = options;
  const started = Date.now();
  const prefix = `${lane.name.padEnd(width)} | `;
  let code = 0;
  let reruns = 0;
  for (const command of lane.commands) {
    let ran = await run(command, prefix, options);
    if (ran.stalled && !interrupted) {
      reruns++;
      write(`${prefix}${command.join(" ")}: running it once more after the stall\n`);
      ran = await run(command, prefix, options);
    }
    code = ran.stalled ? 1 : ran.code;
    if (code !== 0) break;
  }
  return { lane, code, reruns, seconds: Math.round((Date.now() - started) / 1000) };
}

/** The lane's line in the summary at the end. */
export function laneSummary({ lane, code, seconds, reruns }: LaneResult, width: number): string {
  const outcome = code === 0 ? "passed" : `FAILED (exit ${code})`;
  const rerun = reruns > 0 ? ` (${reruns} stalled run${reruns > 1 ? "s" : ""} run again)` : "";
  return `${lane.name.padEnd(width)}  ${outcome} in ${seconds} s${rerun}\n`;
}
