/**
 * The system under test on loopback: the mock model in this process (so its
 * `performance.now()` stamps compare directly with the client's) and
 * `wrangler dev` on 127.0.0.1 pointed at it.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { startMockOpenAI, type MockOpenAI, type MockOpenAIOptions } from "../../test/support/mock-openai.js";
import { startDevServer, type DevServer } from "../../test/support/wrangler-dev.js";

export const TOKEN = "tok-bench";
export const TENANT = "bench";

export interface Service {
  mock: MockOpenAI;
  server: DevServer;
  wsUrl: string;
  /** Seconds wrangler took to answer /health. */
  startSeconds: number;
  /**
   * CPU time (user + system, ms) used so far by the workerd process that runs
   * the Worker and all its Durable Objects (not wrangler's proxy in front of
   * it); undefined if it cannot be found (not Linux).
   */
  workerCpuMs(): number | undefined;
  stop(): Promise<void>;
}

/**
 * `wrangler dev` attaches its DevTools inspector proxy to the Worker's runtime
 * by default, and with it attached every await in the Worker costs many times
 * more (measured here: ~1 ms instead of ~0.05 ms per body read of a streamed
 * fetch). Production has no inspector, so the benchmarks run with it off
 * unless `--inspector` (or BENCH_INSPECTOR=1) asks for wrangler dev as it
 * comes. There is no CLI flag for this: wrangler skips the inspector when it
 * believes it runs in a VS Code JavaScript Debug Terminal, which is what
 * setting `VSCODE_INSPECTOR_OPTIONS` for the wrangler process signals (Node
 * itself ignores the variable unless VS Code's bootloader is preloaded).
 */
export function inspectorOn(argv: string[] = process.argv): boolean {
  return argv.includes("--inspector") || process.env["BENCH_INSPECTOR"] === "1";
}

export function describeRuntime(): string {
  return inspectorOn()
    ? "wrangler dev as it comes (DevTools inspector attached to the Worker runtime)"
    : "wrangler dev with its DevTools inspector off (VSCODE_INSPECTOR_OPTIONS set for wrangler; see bench/lib/service.ts)";
}

export interface ServiceOptions {
  /** HERMES_COALESCE_MS; the service default (5) when undefined. */
  coalesceMs?: number;
  extraVars?: Record<string, string>;
  /** wrangler's --persist-to (D1 and objects), for a figure that seeds D1 first; default a fresh temporary directory. */
  persistDir?: string;
  mock?: MockOpenAIOptions;
}

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  const mock = await startMockOpenAI(opts.mock);
  const started = performance.now();
  let server: DevServer;
  try {
    server = await startDevServer({
      vars: {
        OPENAI_BASE_URL: `${mock.url}/v1`,
        OPENAI_API_KEY: "bench-key",
        HERMES_EDGE_TOKENS: `${TENANT}:${TOKEN}`,
        HERMES_MODEL: "mock-model",
        // Figure 3 runs 200 sessions of one tenant at once; the default limits would refuse most.
        HERMES_TENANT_LIMITS: "{}",
        ...(opts.coalesceMs !== undefined ? { HERMES_COALESCE_MS: String(opts.coalesceMs) } : {}),
        ...opts.extraVars,
      },
      startTimeoutMs: 90_000,
      inspector: inspectorOn(),
      ...(opts.persistDir ? { persistDir: opts.persistDir } : {}),
      // BENCH_SERVICE_DIR: benchmark another checkout (say, a snapshot while this tree is being edited).
      ...(process.env["BENCH_SERVICE_DIR"] ? { cwd: process.env["BENCH_SERVICE_DIR"] } : {}),
    });
  } catch (error) {
    await mock.close();
    throw error;
  }
  const startSeconds = (performance.now() - started) / 1000;
  const workerPid = findWorkerPid(server);
  return {
    mock,
    server,
    wsUrl: server.wsUrl,
    startSeconds,
    workerCpuMs: () => (workerPid === undefined ? undefined : cpuMsOf(workerPid)),
    stop: async () => {
      await server.stop();
      await mock.close();
    },
  };
}

/**
 * wrangler dev runs two workerd processes in its process group: one with
 * wrangler's ProxyWorker on the public port, and one with the user Worker
 * (on a random port). The second is the one that does the service's work.
 */
export function findWorkerPid(server: DevServer): number | undefined {
  try {
    const pids = execFileSync("pgrep", ["-g", String(server.pid), "workerd"], { encoding: "utf8" }).trim().split("\n").map(Number);
    return pids.find((pid) => !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`entry=127.0.0.1:${server.port}`));
  } catch {
    return undefined;
  }
}

/**
 * The time a process's threads have been on a CPU, in ms to the nanosecond
 * (the schedstat of each `/proc/<pid>/task/<tid>`), for spans too short for
 * `cpuMsOf`'s 10 ms ticks. Only threads alive now count: read differences over
 * spans in which none ends (workerd keeps its threads).
 */
export function threadCpuMsOf(pid: number): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

/** utime + stime of a process from /proc, in ms (assumes the usual 100 clock ticks per second). */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
