import { describe, expect, it } from "vitest";
import type { TestCase, TestModule } from "vitest/node";
import type { TestSpecification } from "vitest/node";
import { endedFailures, ENDED_MARK, StallReporter, stallReport } from "../../support/stall-reporter.js";

const module = (id: string, state = "passed") =>
  ({ id, moduleId: `/repo/${id}`, relativeModuleId: id, project: { name: "workers" }, state: () => state }) as unknown as TestModule;
const specs = (...ids: string[]) => ids.map((id) => ({ moduleId: `/repo/${id}`, project: { name: "workers" } })) as unknown as TestSpecification[];
const test = (id: string, fullName: string) => ({ id, fullName }) as unknown as TestCase;

function reporter() {
  let now = 0;
  const written: string[] = [];
  const stall = new StallReporter({ quietMs: 120_000, settleMs: 60_000, write: (text) => written.push(text), now: () => now });
  return { stall, written, at: (ms: number) => (now = ms) };
}

/** A run of two files whose first has ended. */
function firstOfTwoEnded(stall: StallReporter): void {
  stall.onTestRunStart(specs("a.test.ts", "b.test.ts"));
  stall.onTestModuleStart(module("a.test.ts"));
  stall.onTestModuleEnd(module("a.test.ts"));
}

describe("StallReporter", () => {
  it("names the file and the test still running once nothing has started or ended for the quiet period", () => {
    const { stall, written, at } = reporter();
    stall.onTestModuleQueued(module("a.test.ts"));
    at(1_000);
    stall.onTestModuleStart(module("a.test.ts"));
    stall.onTestCaseReady(test("t1", "suite > first"));
    at(2_000);
    stall.onTestCaseResult(test("t1", "suite > first"));
    stall.onTestCaseReady(test("t2", "suite > second"));
    at(121_999);
    stall.check();
    expect(written).toEqual([]);
    at(122_000);
    stall.check();
    expect(written).toEqual([
      "vitest: nothing started or ended for 120 s; running:\n  workers a.test.ts (for 122 s)\n    > suite > second (for 120 s)\n",
    ]);
    // Once a period, not on every check.
    at(130_000);
    stall.check();
    expect(written).toHaveLength(1);
    at(242_000);
    stall.check();
    expect(written).toHaveLength(2);
  });

  it("says when nothing runs: the run is stuck between files", () => {
    const { stall, written, at } = reporter();
    stall.onTestModuleStart(module("a.test.ts"));
    stall.onTestModuleEnd(module("a.test.ts"));
    at(120_000);
    stall.check();
    expect(written).toEqual(["vitest: nothing started or ended for 120 s; nothing is running (between files)\n"]);
  });

  it("counts a file's time from its load, not from its first test", () => {
    const { stall, written, at } = reporter();
    stall.onTestModuleQueued(module("b.test.ts"));
    at(30_000);
    stall.onTestModuleStart(module("b.test.ts"));
    at(150_400);
    stall.check();
    expect(written).toEqual(["vitest: nothing started or ended for 120 s; running:\n  workers b.test.ts (for 150 s)\n"]);
    expect(stallReport([{ what: "x", since: 0 }], 60_000, 500)).toBe("vitest: nothing started or ended for 60 s; running:\n  x (for 1 s)\n");
  });

  it("says once, after the settle period, that every file ended and the run did not, with how many failed", () => {
    const { stall, written, at } = reporter();
    firstOfTwoEnded(stall);
    at(1_000);
    stall.onTestModuleStart(module("b.test.ts"));
    stall.onTestModuleEnd(module("b.test.ts", "failed"));
    at(60_999);
    stall.check();
    expect(written).toEqual([]);
    at(61_000);
    stall.check();
    expect(written).toEqual([`${ENDED_MARK} 60 s: 2 files, 1 failed\n`]);
    at(150_000);
    stall.check();
    expect(written).toHaveLength(1);
    stall.onTestRunEnd();
  });

  it("waits for the run's own end while a file is still to run", () => {
    const { stall, written, at } = reporter();
    firstOfTwoEnded(stall);
    at(100_000);
    stall.check();
    expect(written).toEqual([]);
    stall.onTestRunEnd();
  });

  it("reads the failures from the report's line, and nothing from any other line", () => {
    expect(endedFailures(`${ENDED_MARK} 60 s: 48 files, 0 failed`)).toBe(0);
    expect(endedFailures(`${ENDED_MARK} 60 s: 48 files, 3 failed`)).toBe(3);
    expect(endedFailures(`${ENDED_MARK} garbled`)).toBe(1);
    expect(endedFailures("vitest: nothing started or ended for 300 s; running:")).toBeUndefined();
  });
});
