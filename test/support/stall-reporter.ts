/**
 * A vitest reporter that says what is running when a run stops making progress.
 * A run that hangs otherwise prints nothing until `npm test` stops it, and
 * vitest's own reporters name only the files that finished.
 *
 * The quiet period is longer than any test or hook timeout of the projects (at
 * most 240 s), so a slow test never reports: only a run that no longer enforces
 * its own timeouts does. vitest-pool-workers 0.15.1 does that now and then, idle,
 * mid-run (cloudflare/workers-sdk#15498, open); `npm test` runs such a run again.
 * It also hangs, now and then, after its last file ended: a minute after that,
 * this says so with the files' outcome, and `npm test` takes that outcome.
 * @module
 */
import type { Reporter, TestCase, TestModule, TestSpecification } from "vitest/node";

/** What started and has not ended: a file loading or running, or a test. */
export interface Running {
  what: string;
  since: number;
}

/** How a stall report begins: `npm test` (scripts/test.ts) looks for it. */
export const STALL_MARK = "vitest: nothing started or ended for";

/**
 * How the report of a run whose every file ended, but which did not end itself, begins; it goes on
 * "N s: F files, X failed". vitest-pool-workers 0.15.1 now and then hangs there, after its last file,
 * before vitest's summary; `npm test` stops the run and takes the files' outcome.
 */
export const ENDED_MARK = "vitest: every file ended, but the run did not end for";

/** The outcome a report that begins with `ENDED_MARK` gives: how many files failed; undefined for any other line. */
export function endedFailures(line: string): number | undefined {
  if (!line.startsWith(ENDED_MARK)) return undefined;
  const failed = /, (\d+) failed$/.exec(line);
  return failed ? Number(failed[1]) : 1;
}

/** The lines to print after `quietMs` without a start or an end, given what runs at `now`. */
export function stallReport(running: Iterable<Running>, quietMs: number, now: number): string {
  const lines = [...running].map(({ what, since }) => `  ${what} (for ${Math.round((now - since) / 1000)} s)`);
  const head = `${STALL_MARK} ${Math.round(quietMs / 1000)} s;`;
  return lines.length === 0 ? `${head} nothing is running (between files)\n` : `${head} running:\n${lines.join("\n")}\n`;
}

export interface StallReporterOptions {
  /** How long without a start or an end counts as a stall. */
  quietMs?: number;
  /** How long a run may take to end after its last file ended. */
  settleMs?: number;
  write?: (text: string) => void;
  now?: () => number;
}

export class StallReporter implements Reporter {
  readonly #running = new Map<string, Running>();
  readonly #quietMs: number;
  readonly #settleMs: number;
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  #lastEvent: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The run's files not yet ended (by project and path), how many there were and failed, and when the last ended (reported once). */
  readonly #pending = new Set<string>();
  #files = 0;
  #failed = 0;
  #allEndedAt: number | undefined;

  constructor({ quietMs = 300_000, settleMs = 60_000, write = (text) => void process.stderr.write(text), now = Date.now }: StallReporterOptions = {}) {
    this.#quietMs = quietMs;
    this.#settleMs = settleMs;
    this.#write = write;
    this.#now = now;
    this.#lastEvent = now();
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): void {
    this.#lastEvent = this.#now();
    for (const spec of specifications) this.#pending.add(fileKey(spec.project.name, spec.moduleId));
    this.#files = this.#pending.size;
    this.#timer ??= setInterval(() => this.check(), Math.min(10_000, this.#quietMs)).unref();
  }

  onTestRunEnd(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  onTestModuleQueued(module: TestModule): void {
    this.#start(module.id, `${module.project.name} ${module.relativeModuleId} (loading)`);
  }

  onTestModuleStart(module: TestModule): void {
    this.#start(module.id, `${module.project.name} ${module.relativeModuleId}`);
  }

  onTestModuleEnd(module: TestModule): void {
    this.#end(module.id);
    if (module.state() === "failed") this.#failed++;
    const key = fileKey(module.project.name, module.moduleId);
    if (this.#pending.delete(key) && this.#pending.size === 0) this.#allEndedAt = this.#now();
  }

  onTestCaseReady(test: TestCase): void {
    this.#start(test.id, `  > ${test.fullName}`);
  }

  onTestCaseResult(test: TestCase): void {
    this.#end(test.id);
  }

  /** Prints what runs, once per quiet period; or, once, that every file ended and the run did not. */
  check(): void {
    const now = this.#now();
    if (this.#allEndedAt !== undefined && now - this.#allEndedAt >= this.#settleMs) {
      this.#write(`${ENDED_MARK} ${Math.round((now - this.#allEndedAt) / 1000)} s: ${this.#files} files, ${this.#failed} failed\n`);
      this.#allEndedAt = undefined;
      this.#lastEvent = now;
      return;
    }
    if (now - this.#lastEvent < this.#quietMs) return;
    this.#write(stallReport(this.#running.values(), this.#quietMs, now));
    this.#lastEvent = now;
  }

  #start(id: string, what: string): void {
    this.#lastEvent = this.#now();
    this.#running.set(id, { what, since: this.#running.get(id)?.since ?? this.#lastEvent });
  }

  #end(id: string): void {
    this.#running.delete(id);
    this.#lastEvent = this.#now();
  }
}

function fileKey(project: string, moduleId: string): string {
  return `${project}\u0000${moduleId}`;
}
