/**
 * Diagnostic behind figure 2b (not part of `npm run bench`): where a fast
 * stream's Worker CPU goes below JavaScript, in hermes-edge and in the reading
 * floor. A V8 profile (bench/profile-stream.ts) sees only the JavaScript and
 * the native calls it makes; the commits, the RPC machinery, the kernel and
 * the garbage collector's other threads are outside it.
 *
 * Starts this tree's service and the reading floor (bench/lib/read-floor.ts),
 * warms both, then records each one's workerd with Linux `perf` (every
 * thread, 5 kHz) while `--trials N` unpaced answers of 20,000 deltas stream
 * through it, and prints the CPU per 1,000 deltas by kind of code (the
 * symbol's library and name) and the symbols that differ most. Needs `perf`
 * and the right to attach to a process (root, or `kernel.perf_event_paranoid`
 * ≤ 1); sampling costs, so read the differences, not the totals.
 *
 *   npx tsx bench/diagnose-stream-native.ts [--trials 4]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WsAcpClient } from "./lib/acp-client.js";
import { argValue } from "./lib/args.js";
import { assertPerf, kindOf, recordPerf } from "./lib/perf.js";
import { ReadFloor } from "./lib/read-floor.js";
import { findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { fmt, table } from "./lib/stats.js";
import { initialize, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

const TRIALS = Number(argValue("--trials") ?? 4);
const DELTAS = 20_000;
const HZ = 5_000;

/** Samples per symbol, from `perf report`. */
type Samples = Map<string, number>;

/** Records `pid` with perf while `work` runs; the samples by symbol ("[k] name" for the kernel's). */
async function record(pid: number, file: string, work: () => Promise<void>): Promise<Samples> {
  await recordPerf(pid, file, ["-F", String(HZ)], work);
  const report = spawnSync("perf", ["report", "-i", file, "--no-children", "--sort", "dso,sym", "--stdio", "-g", "none", "-n"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const samples: Samples = new Map();
  for (const line of report.stdout.split("\n")) {
    const m = /^\s+[\d.]+%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.*)$/.exec(line);
    if (!m) continue;
    const key = `${m[3] === "k" ? "[k] " : ""}${m[2]}\t${m[4]!.trim()}`;
    samples.set(key, (samples.get(key) ?? 0) + Number(m[1]));
  }
  if (samples.size === 0) throw new Error(`perf recorded nothing for process ${pid} (not allowed to attach? see kernel.perf_event_paranoid)`);
  return samples;
}

/** The kind of code of a symbol key as `record` makes them. */
function kindOfKey(key: string): string {
  const [dso = "", sym = ""] = key.split("\t");
  return kindOf(dso.replace(/^\[k\] /, ""), sym, dso.startsWith("[k] "));
}

/** Milliseconds of CPU per 1,000 deltas that `samples` samples stand for. */
const perK = (samples: number) => ((samples / HZ) * 1000 * 1000) / (TRIALS * DELTAS);

assertPerf();
const service = await startService();
const floor = await ReadFloor.start();
const dir = mkdtempSync(join(tmpdir(), "hermes-stream-native-"));
try {
  const pid = findWorkerPid(service.server);
  if (pid === undefined || floor.pid === undefined) throw new Error("a Worker's workerd process was not found");
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  await initialize(client);
  const answer = async (key: string, deltas: number) => {
    service.mock.setScript(key, [{ tokens: deltas }]);
    const { sessionId } = await newSession(client);
    await runPrompt(client, sessionId, `Stream as fast as you can ${nonce(key, 0)} [[mock:${key}]]`, 120_000);
    client.forgetSession(sessionId);
    service.mock.reset();
    await sleep(200);
  };
  const floorRead = async (key: string, deltas: number) => {
    await floor.readAnswer(service.mock, key, deltas);
    await sleep(200);
  };
  // Code loading, the first writes and the JIT's warm-up stay out of the records.
  await answer("warm-0", 2_000);
  await answer("warm-1", 2_000);
  await floorRead("warm-floor", 2_000);
  const ours = await record(pid, join(dir, "service.data"), async () => {
    for (let i = 0; i < TRIALS; i++) await answer(`service-${i}`, DELTAS);
  });
  const theirs = await record(floor.pid, join(dir, "floor.data"), async () => {
    for (let i = 0; i < TRIALS; i++) await floorRead(`floor-${i}`, DELTAS);
  });
  client.close();

  const byKind = (samples: Samples) => {
    const kinds = new Map<string, number>();
    for (const [key, n] of samples) kinds.set(kindOfKey(key), (kinds.get(kindOfKey(key)) ?? 0) + n);
    return kinds;
  };
  const a = byKind(ours);
  const b = byKind(theirs);
  const above = (kind: string) => (a.get(kind) ?? 0) - (b.get(kind) ?? 0);
  const kinds = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => above(y) - above(x));
  const total = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
  console.log(`\nCPU per 1,000 deltas by kind of code (perf, ${HZ} Hz, every thread; ${TRIALS} answers of ${DELTAS} unpaced deltas each)\n`);
  console.log(
    table(
      ["kind", "hermes-edge (ms)", "reading floor (ms)", "difference (ms)"],
      [
        ...kinds.map((k) => [k, fmt(perK(a.get(k) ?? 0)), fmt(perK(b.get(k) ?? 0)), fmt(perK(above(k)))]),
        ["total", fmt(perK(total(a))), fmt(perK(total(b))), fmt(perK(total(a) - total(b)))],
      ],
    ),
  );
  const symbols = [...new Set([...ours.keys(), ...theirs.keys()])]
    .map((key) => ({ key, diff: (ours.get(key) ?? 0) - (theirs.get(key) ?? 0) }))
    .sort((x, y) => y.diff - x.diff)
    .slice(0, 25);
  console.log(`\nThe symbols hermes-edge spends most on above the floor\n`);
  console.log(
    table(
      ["symbol", "library", "hermes-edge − floor (ms per 1,000 deltas)"],
      symbols.map(({ key, diff }) => {
        const [dso = "", sym = ""] = key.split("\t");
        return [sym.slice(0, 90), dso, fmt(perK(diff))];
      }),
    ),
  );
} finally {
  await floor.stop();
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
