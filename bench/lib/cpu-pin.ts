/**
 * Gives the Workers under test a core of their own. On the 2-core benchmark
 * machine the bench process (the client and the mock model), wrangler and
 * wrangler's proxy workerd otherwise share the cores with the workerd being
 * measured, and a first chunk then reaches the client only when the measured
 * Worker happens to leave a core free for the proxy and the client: a Worker
 * whose thread waits on storage commits often looks faster than one that
 * keeps computing (BENCHMARKS.md, figure 1b, session 16). Deployed, a Worker
 * shares no core with its client.
 *
 * Linux only (`taskset`, from util-linux); with fewer than two cores or
 * without `taskset` nothing is pinned and the figure says so.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

export interface CorePlan {
  /** Cores for the workerd processes that run the Workers under test, as `taskset -c` takes them. */
  workers: string;
  /** Cores for everything else: this process, and what it starts (wrangler, its proxy workerd). */
  rest: string;
  /** How the figure describes it. */
  description: string;
}

/** Core 0 for the Workers, the others for the rest; null where pinning cannot be done. */
export function corePlan(cpus: number = availableParallelism()): CorePlan | null {
  if (process.platform !== "linux" || cpus < 2 || !hasTaskset()) return null;
  const rest = cpus === 2 ? "1" : `1-${cpus - 1}`;
  return { workers: "0", rest, description: `Workers under test pinned to core 0; the bench, wrangler and its proxies to core ${rest}` };
}

/**
 * Moves this process (every thread) to the plan's other cores; processes it
 * starts afterwards inherit them. Returns what puts it back.
 */
export function pinBench(plan: CorePlan): () => void {
  const before = execFileSync("taskset", ["-p", "-c", String(process.pid)], { encoding: "utf8" }).split(":").pop()!.trim();
  taskset(plan.rest, process.pid);
  return () => taskset(before, process.pid);
}

/** Moves a Worker's workerd (every thread) to the plan's Worker cores. */
export function pinWorker(plan: CorePlan, pid: number): void {
  taskset(plan.workers, pid);
}

function taskset(cores: string, pid: number): void {
  execFileSync("taskset", ["-a", "-p", "-c", cores, String(pid)], { stdio: "ignore" });
}

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
