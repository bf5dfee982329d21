/**
 * The frame every figure script runs in: a header (machine, versions, load,
 * command), a watchdog so that nothing runs forever, cleanup on every exit
 * path, and a summary written to `BENCH_RESULT_FILE` for `bench/run.ts`.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { describeMachine, loadText } from "./machine.js";
import { describeRuntime } from "./service.js";
import { table } from "./stats.js";

export type Status = "met" | "missed" | "info" | "not measured" | "error";

/** One line of the summary table. */
export interface SummaryRow {
  figure: string;
  metric: string;
  value: string;
  target: string;
  status: Status;
  /** How far from the target, or why it was not measured. */
  note?: string;
}

export interface FigureResult {
  figure: string;
  title: string;
  rows: SummaryRow[];
  seconds: number;
  loadBefore: string;
  loadAfter: string;
  runtime: string;
}

export interface FigureContext {
  /** `--quick` (or BENCH_QUICK=1): small N, for developing the benchmark itself. */
  quick: boolean;
  /** Runs at the end, latest first, whatever happens (also on the watchdog and SIGINT). */
  defer(cleanup: () => Promise<void> | void): void;
  /** Throws once the figure's time budget is spent (check it inside loops). */
  checkTime(what: string): void;
  log(line?: string): void;
}

export function isQuick(argv: string[] = process.argv): boolean {
  return argv.includes("--quick") || process.env["BENCH_QUICK"] === "1";
}

/** True when `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;
}

export const SUMMARY_HEADER = ["figure", "metric", "value", "target", "status"] as const;

export function summaryTable(rows: readonly SummaryRow[]): string {
  return table(
    SUMMARY_HEADER,
    rows.map((r) => [r.figure, r.metric, r.value, r.target, r.note ? `${r.status} (${oneLine(r.note)})` : r.status]),
  );
}

/** A note fit for a table cell: one line, at most 160 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/**
 * Runs one figure as a script: prints its header, enforces `limitMs`, prints
 * the summary rows and exits (0, or 1 if the body threw or timed out).
 */
export async function runFigure(
  figure: string,
  title: string,
  limitMs: number,
  body: (ctx: FigureContext) => Promise<SummaryRow[]>,
): Promise<never> {
  const started = performance.now();
  const deadline = started + limitMs;
  const cleanups: (() => Promise<void> | void)[] = [];
  const loadBefore = loadText();
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const fn of cleanups.reverse()) {
        try {
          await fn();
        } catch (error) {
          console.error(`cleanup failed: ${String(error)}`);
        }
      }
    })());
  const finish = async (rows: SummaryRow[], code: number): Promise<never> => {
    await cleanup();
    const result: FigureResult = {
      figure,
      title,
      rows,
      seconds: (performance.now() - started) / 1000,
      loadBefore,
      loadAfter: loadText(),
      runtime: describeRuntime(),
    };
    console.log(`\n${summaryTable(rows)}\n\n${figure} done in ${result.seconds.toFixed(1)} s; load ${result.loadAfter} (before: ${loadBefore})`);
    const out = process.env["BENCH_RESULT_FILE"];
    if (out) writeFileSync(out, JSON.stringify(result, null, 2));
    process.exit(code);
  };
  const failed = (error: unknown) =>
    finish([{ figure, metric: title, value: "—", target: "—", status: "error", note: error instanceof Error ? error.message : String(error) }], 1);

  const watchdog = setTimeout(() => {
    console.error(`${figure}: time limit of ${limitMs / 1000} s reached; stopping`);
    void failed(new Error(`time limit of ${limitMs / 1000} s reached`));
  }, limitMs);
  watchdog.unref();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void failed(new Error(`${signal} received`)));
  }

  const ctx: FigureContext = {
    quick: isQuick(),
    defer: (fn) => cleanups.push(fn),
    checkTime: (what) => {
      if (performance.now() > deadline) throw new Error(`time limit of ${limitMs / 1000} s reached during ${what}`);
    },
    log: (line = "") => console.log(line),
  };
  console.log(`\n=== ${figure}: ${title}${ctx.quick ? " (quick mode: small N, not for BENCHMARKS.md)" : ""} ===`);
  console.log(describeMachine());
  console.log(`runtime:  ${describeRuntime()}`);
  console.log();
  try {
    const rows = await body(ctx);
    return await finish(rows, 0);
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return failed(error);
  }
}

/** "met" when `value <= target`, else "missed" with how much over. */
export function against(value: number, target: number, unit: string): { status: Status; note?: string } {
  if (!Number.isFinite(value)) return { status: "error", note: "no value" };
  if (value <= target) return { status: "met" };
  const over = value - target;
  const by = over < 10 ? over.toFixed(2) : over.toFixed(0);
  return { status: "missed", note: `+${by}${unit ? ` ${unit}` : ""}, ${(value / target).toFixed(2)}× the target` };
}
