/**
 * Linux `perf` for the diagnostics that look below JavaScript at a Worker's
 * workerd (bench/diagnose-stream-native.ts, bench/diagnose-stream-stalls.ts).
 * Attaching needs root or `kernel.perf_event_paranoid` ≤ 1.
 */
import { spawn, spawnSync } from "node:child_process";
import { sleep } from "./turns.js";

/** Throws, saying how to get it, when `perf` is not on the PATH. */
export function assertPerf(): void {
  if (spawnSync("perf", ["--version"]).error) throw new Error("this diagnostic needs Linux perf on the PATH (Debian: apt-get install -y linux-perf)");
}

/** Records process `pid` into `file` with `perf record <options>` while `work` runs. */
export async function recordPerf(pid: number, file: string, options: readonly string[], work: () => Promise<void>): Promise<void> {
  const perf = spawn("perf", ["record", ...options, "-p", String(pid), "-o", file], { stdio: "ignore" });
  await sleep(500); // perf attaches before the work starts
  try {
    await work();
  } finally {
    perf.kill("SIGINT");
    await new Promise((resolve) => perf.on("exit", resolve));
  }
}

/** V8's and cppgc's collectors, and the handles they walk. */
export const GARBAGE_COLLECTION = /Scavenger|MarkCompact|Marking|Sweeper|cppgc|^v8::internal::Heap|GlobalHandles|IsUnmodifiedApiObject|HeapTracer/;

/** SQLite's own functions (in workerd, statically linked). */
export const SQLITE = /^(sqlite3|wal|pager|btree)/i;

/** The kind of code a sampled symbol of library `dso` belongs to (`kernel` true for the kernel's). */
export function kindOf(dso: string, sym: string, kernel: boolean): string {
  if (kernel) return "kernel (system calls: commits' file writes, sockets)";
  if (dso.includes("JIT") || sym.startsWith("Builtins_") || sym.startsWith("0x")) return "JavaScript (compiled code and V8 builtins)";
  if (SQLITE.test(sym)) return "SQLite";
  if (/tcmalloc|TCMalloc/.test(sym)) return "malloc";
  if (GARBAGE_COLLECTION.test(sym)) return "garbage collection and handles";
  if (sym.startsWith("v8::") || sym.startsWith("unibrow")) return "V8 runtime";
  if (sym.startsWith("kj::") || sym.startsWith("capnp::")) return "kj / capnp (event loop, RPC)";
  if (sym.startsWith("workerd::")) return "workerd (streams, I/O context, wrappers)";
  if (dso.startsWith("libc")) return "libc";
  return "other";
}
