/**
 * A vitest reporter that says what is running when a run stops making progress.
 * A run that hangs otherwise prints nothing until `npm test` stops it, and
 * vitest's own reporters name only the files that finished.
 *
 * The quiet period is longer than any test or hook timeout of the projects (at
 * most 240 s), so a slow test never reports: only a run that no longer enforces
 * its own timeouts does. vitest-pool-workers 0.15.1 does that now and then, idle,
 * mid-run (cloudflare/workers-sdk#15498, open); `npm test` runs such a run again.
 * @module
 */
import type { Reporter, TestCase, TestModule } from "vitest/node";

/** What started and has not ended: a file loading or running, or a test. */
export interface Running {
  what: string;
  since: number;
}

/** How a stall report begins: `npm test` (scripts/test.ts) looks for it. */
export const STALL_MARK = "vitest: nothing started or ended for";

/** The lines to print after `quietMs` without a start or an end, given what runs at `now`. */
export function stallReport(running: Iterable<Running>, quietMs: number, now: number): string {
  const lines = [...running].map(({ what, since }) => `  ${what} (for ${Math.round((now - since) / 1000)} s)`);
  const head = `${STALL_MARK} ${Math.round(quietMs / 1000)} s;`;
  return lines.length === 0 ? `${head} nothing is running (between files)\n` : `${head} running:\n${lines.join("\n")}\n`;
}

export interface StallReporterOptions {
  /** How long without a start or an end counts as a stall. */
  quietMs?: number;
  write?: (text: string) => void;
  now?: () => number;
}

export class StallReporter implements Reporter {
  readonly #running = new Map<string, Running>();
  readonly #quietMs: number;
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  #lastEvent: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor({ quietMs = 300_000, write = (text) => void process.stderr.write(text), now = Date.now }: StallReporterOptions = {}) {
    this.#quietMs = quietMs;
    this.#write = write;
    this.#now = now;
    this.#lastEvent = now();
  }

  onTestRunStart(): void {
    this.#lastEvent = this.#now();
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
  }

  onTestCaseReady(test: TestCase): void {
    this.#start(test.id, `  > ${test.fullName}`);
  }

  onTestCaseResult(test: TestCase): void {
    this.#end(test.id);
  }

  /** Prints what runs, once per quiet period. */
  check(): void {
    const now = this.#now();
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
