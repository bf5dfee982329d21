/**
 * `npm run bench`: every figure of issue 7 in sequence, each in its own
 * process (its own `wrangler dev`, mock and clients, so one figure's garbage
 * or leftover Durable Objects cannot slow the next), then one summary table.
 *
 *   npm run bench                      # the full run (about 3 minutes on 2 cores)
 *   npm run bench -- --quick           # small N, for working on the benchmarks
 *   npm run bench -- --only 1,4        # some figures
 *   npm run bench -- --inspector       # wrangler dev with its DevTools inspector attached
 *   npm run bench -- --out results.json
 *
 * Each figure also runs alone: `npx tsx bench/first-token.ts` (see the list below).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argValue } from "./lib/args.js";
import { summaryTable, type FigureResult, type SummaryRow } from "./lib/figure.js";
import { describeMachine, loadText, REPO_ROOT } from "./lib/machine.js";
import { describeRuntime, inspectorOn } from "./lib/service.js";

interface FigureSpec {
  id: string;
  file: string;
  title: string;
  /** Killed (SIGTERM, then SIGKILL) after this long; the figures also stop themselves earlier. */
  limitMs: number;
  /** Written by someone else, maybe not there yet. */
  optional?: boolean;
}

const FIGURES: FigureSpec[] = [
  { id: "1", file: "bench/first-token.ts", title: "first-token overhead", limitMs: 12 * 60_000 },
  { id: "1b", file: "bench/platform-floor.ts", title: "figure 1 against the platform floor", limitMs: 12 * 60_000 },
  { id: "1c", file: "bench/bundle.ts", title: "the Worker bundle: raw and gzip upload, by package", limitMs: 10 * 60_000 },
  { id: "2", file: "bench/streaming.ts", title: "streaming a 20,000-token answer", limitMs: 12 * 60_000 },
  // BENCH_BASELINE_DIR=<another checkout> measures it too, trial by trial in the same run.
  { id: "2b", file: "bench/streaming-capacity.ts", title: "streaming capacity of one session (deltas/s, unpaced model)", limitMs: 12 * 60_000 },
  { id: "3", file: "bench/concurrency.ts", title: "50/100/200 concurrent sessions", limitMs: 17 * 60_000 },
  { id: "4", file: "bench/history.ts", title: "session/load of 1,000 and 10,000 updates", limitMs: 17 * 60_000 },
  { id: "5", file: "bench/proxy.ts", title: "proxy memory and latency per frame", limitMs: 17 * 60_000 },
  // BENCH_BASELINE_DIR=<another checkout> measures it first in the same run (bench/subagents.ts).
  { id: "6", file: "bench/subagents.ts", title: "sub-agents at the cap (10, 16 in one call or two) versus one", limitMs: 17 * 60_000, optional: true },
  { id: "6b", file: "bench/parallel-tools.ts", title: "three reads of one model message versus one", limitMs: 12 * 60_000 },
  { id: "7", file: "bench/search.ts", title: "/v1/search for a word in 2,000 and 12,000 messages", limitMs: 10 * 60_000 },
  { id: "8", file: "bench/long-session.ts", title: "a long session: turn cost at 2,000 turns, memory at 10 MB", limitMs: 40 * 60_000 },
  { id: "8c", file: "bench/stored-bytes.ts", title: "stored bytes of one 200 KB prompt (issue 25 target 3)", limitMs: 10 * 60_000 },
  { id: "9", file: "bench/restart.ts", title: "a wrangler dev restart to the resumed turn's first token", limitMs: 10 * 60_000 },
];

function runOne(spec: FigureSpec, passArgs: string[], resultFile: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, spec.file), ...passArgs], {
      cwd: REPO_ROOT,
      env: { ...process.env, BENCH_RESULT_FILE: resultFile },
      stdio: "inherit",
    });
    let killTimer: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => {
      console.error(`\n${spec.file}: no result after ${spec.limitMs / 60_000} min; stopping it`);
      child.kill("SIGTERM"); // the figure cleans up (stops wrangler) on SIGTERM
      killTimer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    }, spec.limitMs);
    const stop = () => child.kill("SIGTERM");
    process.once("SIGINT", stop);
    child.once("exit", (code) => {
      clearTimeout(limit);
      if (killTimer) clearTimeout(killTimer);
      process.removeListener("SIGINT", stop);
      resolve(code);
    });
  });
}

function readResult(file: string): FigureResult | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as FigureResult;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const only = argValue("--only")?.split(",").map((s) => s.trim());
  const out = argValue("--out");
  const passArgs = [process.argv.includes("--quick") ? "--quick" : "", inspectorOn() ? "--inspector" : ""].filter(Boolean);
  const selected = FIGURES.filter((f) => !only || only.includes(f.id));
  const header = describeMachine();
  const loadBefore = loadText();
  const started = performance.now();
  console.log(`hermes-edge benchmarks (issue 7)\n${header}\nruntime:  ${describeRuntime()}`);
  if (passArgs.includes("--quick")) console.log("QUICK MODE: small N; not for BENCHMARKS.md");

  const tmp = mkdtempSync(join(tmpdir(), "hermes-bench-"));
  const results: FigureResult[] = [];
  const rows: SummaryRow[] = [];
  try {
    for (const spec of selected) {
      const figure = `figure ${spec.id}`;
      if (spec.optional && !existsSync(join(REPO_ROOT, spec.file))) {
        console.log(`\n=== ${figure}: ${spec.title}: ${spec.file} does not exist yet; not measured ===`);
        rows.push({ figure: `${spec.id} sub-agents`, metric: spec.title, value: "—", target: "≤ 1.3×", status: "not measured", note: `${spec.file} does not exist yet` });
        continue;
      }
      const resultFile = join(tmp, `figure-${spec.id}.json`);
      const code = await runOne(spec, passArgs, resultFile);
      const result = readResult(resultFile);
      if (result) {
        results.push(result);
        rows.push(...result.rows);
      } else {
        rows.push({
          figure,
          metric: spec.title,
          value: "—",
          target: "—",
          status: code === 0 ? "info" : "error",
          note: code === 0 ? `${spec.file} ran (exit 0) but wrote no BENCH_RESULT_FILE; see its output above` : `${spec.file} exited with ${code}`,
        });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const minutes = (performance.now() - started) / 60_000;
  console.log(`\n\n=== summary (${minutes.toFixed(1)} min; load before ${loadBefore}, after ${loadText()}) ===`);
  console.log(header);
  console.log(`runtime:  ${describeRuntime()}\n`);
  console.log(summaryTable(rows));
  if (out) {
    writeFileSync(out, JSON.stringify({ header, runtime: describeRuntime(), loadBefore, loadAfter: loadText(), minutes, results, rows }, null, 2));
    console.log(`\nresults written to ${out}`);
  }
  process.exit(rows.some((r) => r.status === "error") ? 1 : 0);
}

await main();
