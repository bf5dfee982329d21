/**
 * Counts the sockets `wrangler dev`'s workerd processes hold (Linux /proc),
 * sampled while a test runs: issue 26's long answer left one of them with
 * ~20,000 sockets to wrangler's node process, "Too many open files".
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";

/** Pids of the workerd processes in process group `pgid` (none if the group is gone). */
export function workerdPids(pgid: number): number[] {
  try {
    return execFileSync("pgrep", ["-g", String(pgid), "workerd"], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Open socket descriptors of `pid`; 0 once it has exited. */
export function socketCount(pid: number): number {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return 0;
  }
  let sockets = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++;
    } catch {
      // closed between readdir and readlink
    }
  }
  return sockets;
}

export interface SocketWatch {
  /** The most sockets any one workerd of the group held at a sample. */
  peak(): number;
  stop(): void;
}

/**
 * Samples every workerd of group `pgid` each `intervalMs`; `onOver` is called
 * once, as soon as one holds more than `limit`, so a test can fail at once
 * instead of waiting for its timeout.
 */
export function watchWorkerdSockets(pgid: number, opts: { intervalMs?: number; limit: number; onOver(count: number): void }): SocketWatch {
  let peak = 0;
  let reported = false;
  let pids: number[] = [];
  let samples = 0;
  const sample = () => {
    // pgrep is a subprocess: look the pids up again only every tenth sample (they do not change while serving).
    if (samples++ % 10 === 0) pids = workerdPids(pgid);
    for (const pid of pids) peak = Math.max(peak, socketCount(pid));
    if (peak > opts.limit && !reported) {
      reported = true;
      opts.onOver(peak);
    }
  };
  sample();
  const timer = setInterval(sample, opts.intervalMs ?? 100);
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}
