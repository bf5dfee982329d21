/**
 * Diagnostic behind figure 2's lag tail (not part of `npm run bench`): what
 * holds a paced stream's updates back for tens of milliseconds. Streams
 * `--answers N` answers of `--tokens T` tokens, the mock pacing them
 * `--pace MS` apart, through this tree's service while Linux `perf` records its
 * workerd on the wall clock with call graphs. Then, for every gap of more than
 * `--gap MS` between two updates at the client, it prints what the Worker's
 * main thread ran meanwhile: the collector's major or minor collections,
 * SQLite (the commits), the kernel, or JavaScript and the runtime. Needs `perf`
 * and the right to attach (see bench/lib/perf.ts); sampling costs, so read
 * the shares, not the milliseconds.
 *
 *   npx tsx bench/diagnose-stream-stalls.ts [--answers 4] [--tokens 4000] [--pace 0.5] [--gap 20]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WsAcpClient } from "./lib/acp-client.js";
import { argValue } from "./lib/args.js";
import { assertPerf, GARBAGE_COLLECTION, recordPerf, SQLITE } from "./lib/perf.js";
import { findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { fmt, summarize, table } from "./lib/stats.js";
import { callFor, initialize, isAgentChunk, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

const ANSWERS = Number(argValue("--answers") ?? 4);
const TOKENS = Number(argValue("--tokens") ?? 4_000);
const PACE_MS = Number(argValue("--pace") ?? 0.5);
const GAP_MS = Number(argValue("--gap") ?? 20);
const HZ = 4_000;
const KINDS = ["major collection", "minor collection", "SQLite", "kernel", "JavaScript and the runtime"] as const;
type Kind = (typeof KINDS)[number];

/** One perf sample of the main thread: when (epoch ms) and what it ran. */
interface Sample {
  at: number;
  kind: Kind;
}

/** A gap between two updates at the client, on the wall clock (epoch ms). */
interface Stall {
  answer: number;
  /** Since the answer's first token was written. */
  intoMs: number;
  from: number;
  to: number;
  /** How long the first token of the update that ended the gap waited. */
  lagMs: number;
}

function kindOfStack(frames: { sym: string; kernel: boolean }[]): Kind {
  if (frames.some((f) => GARBAGE_COLLECTION.test(f.sym))) return frames.some((f) => /Scavenge/.test(f.sym)) ? "minor collection" : "major collection";
  if (frames.some((f) => SQLITE.test(f.sym))) return "SQLite";
  return frames[0]?.kernel ? "kernel" : "JavaScript and the runtime";
}

/** The main thread's samples (its thread id is the process id) from a `perf record -k CLOCK_REALTIME -g` file. */
function mainThreadSamples(file: string, pid: number): Sample[] {
  const script = spawnSync("perf", ["script", "-i", file, "--tid", String(pid), "-F", "time,ip,sym,dso", "--max-stack", "30"], {
    encoding: "utf8",
    maxBuffer: 1024 * 1024 * 1024,
  });
  const samples: Sample[] = [];
  for (const block of script.stdout.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.trim());
    const at = /^\s*([\d.]+):/.exec(lines[0] ?? "")?.[1];
    if (!at) continue;
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)$/.exec(l);
      return { sym: m?.[1] ?? "", kernel: m?.[2] === "[kernel.kallsyms]" };
    });
    samples.push({ at: Number(at) * 1000, kind: kindOfStack(frames) });
  }
  if (samples.length === 0) throw new Error(`perf recorded nothing for process ${pid} (not allowed to attach? see kernel.perf_event_paranoid)`);
  return samples;
}

assertPerf();
const service = await startService();
const dir = mkdtempSync(join(tmpdir(), "hermes-stream-stalls-"));
try {
  const pid = findWorkerPid(service.server);
  if (pid === undefined) throw new Error("the Worker's workerd process was not found");
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  await initialize(client);
  const warm = await newSession(client);
  await runPrompt(client, warm.sessionId, `warm up ${nonce("warm", 0)}`);

  const stalls: Stall[] = [];
  const lags: number[] = [];
  const file = join(dir, "stalls.data");
  await recordPerf(pid, file, ["-k", "CLOCK_REALTIME", "-g", "-F", String(HZ)], async () => {
    for (let a = 0; a < ANSWERS; a++) {
      const key = `stalls-${a}`;
      service.mock.setScript(key, [{ tokens: TOKENS, chunkIntervalMs: PACE_MS, recordChunkTimes: true }]);
      const { sessionId } = await newSession(client);
      const tag = nonce(key, a);
      const run = await runPrompt(client, sessionId, `Write a long answer ${tag} [[mock:${key}]]`, 120_000);
      const written = callFor(service.mock, tag, key)?.chunkWrittenAt;
      if (!written) throw new Error(`answer ${a + 1}: the mock recorded no write times`);
      // The client's and the mock's clocks are this process's `performance.now()`; perf's is the wall clock.
      const wall = (at: number) => performance.timeOrigin + at;
      let previous: number | undefined;
      for (const frame of run.frames.filter(isAgentChunk)) {
        const first = Number(/t(\d+)/.exec(frame.msg.params.update.content.text as string)?.[1]);
        const lag = frame.at - written[first]!;
        lags.push(lag);
        if (previous !== undefined && frame.at - previous > GAP_MS) {
          stalls.push({ answer: a + 1, intoMs: frame.at - written[0]!, from: wall(previous), to: wall(frame.at), lagMs: lag });
        }
        previous = frame.at;
      }
      client.forgetSession(sessionId);
      service.mock.reset();
      await sleep(200);
    }
  });
  client.close();

  const samples = mainThreadSamples(file, pid);
  const msPerSample = 1000 / HZ;
  const lag = summarize(lags);
  console.log(
    `\n${ANSWERS} answers of ${TOKENS} tokens, ${PACE_MS} ms apart; lag of each update's first token p50 / p99 / max ` +
      `${fmt(lag.p50)} / ${fmt(lag.p99)} / ${fmt(lag.max)} ms; ${stalls.length} gaps over ${GAP_MS} ms between updates\n`,
  );
  const rows = stalls.map((stall) => {
    // The update left the Worker a little before the client read it.
    const inside = samples.filter((s) => s.at >= stall.from - 2 && s.at <= stall.to);
    const ms = (kind: Kind) => fmt(inside.filter((s) => s.kind === kind).length * msPerSample);
    return [String(stall.answer), fmt(stall.intoMs), fmt(stall.to - stall.from), fmt(stall.lagMs), fmt(inside.length * msPerSample), ...KINDS.map(ms)];
  });
  console.log(table(["answer", "at (ms)", "gap (ms)", "lag (ms)", "main thread busy (ms)", ...KINDS.map((k) => `${k} (ms)`)], rows));
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
