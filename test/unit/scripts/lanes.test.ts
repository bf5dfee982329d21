import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { laneSummary, runLane, type Lane } from "../../../scripts/lib/lanes.js";
import { ENDED_MARK, STALL_MARK } from "../../support/stall-reporter.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A command that counts its runs in a file and, on the runs listed, prints a stall report and then
 * waits as a stalled vitest does; on the others it prints its run and exits with `code`.
 */
function command(stallOn: number[], code = 0): string[] {
  const dir = mkdtempSync(join(tmpdir(), "lanes-"));
  made.push(dir);
  const script = `
    const fs = require("node:fs");
    const file = ${JSON.stringify(join(dir, "runs"))};
    const n = (fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8")) : 0) + 1;
    fs.writeFileSync(file, String(n));
    if (${JSON.stringify(stallOn)}.includes(n)) {
      console.error(${JSON.stringify(STALL_MARK)} + " 300 s; running:");
      setInterval(() => {}, 1000);
    } else {
      console.log("run " + n);
      process.exit(${code});
    }`;
  return [process.execPath, "-e", script];
}

/** A command that prints the every-file-ended report with `failed` failures, then hangs as the pool does. */
function endedButHung(failed: number): string[] {
  return [process.execPath, "-e", `console.error(${JSON.stringify(ENDED_MARK)} + " 60 s: 48 files, ${failed} failed"); setInterval(() => {}, 1000);`];
}

async function lane(commands: string[][]) {
  const lines: string[] = [];
  const result = await runLane({ name: "w", commands } satisfies Lane, 1, { write: (text) => lines.push(text) });
  return { result, lines };
}

describe("runLane", () => {
  it("stops a command that reports a stall and runs it once more", async () => {
    const stalling = command([1]);
    const { result, lines } = await lane([stalling]);
    expect(result).toMatchObject({ code: 0, reruns: 1 });
    expect(lines).toEqual([
      `w | ${STALL_MARK} 300 s; running:\n`,
      `w | ${stalling.join(" ")}: stalled; stopped\n`,
      `w | ${stalling.join(" ")}: running it once more after the stall\n`,
      "w | run 2\n",
    ]);
    expect(laneSummary(result, 1)).toMatch(/^w {2}passed in \d+ s \(1 stalled run run again\)\n$/);
  });

  it("fails the lane when the second run stalls too, and runs no command after it", async () => {
    const after = command([]);
    const { result, lines } = await lane([command([1, 2]), after]);
    expect(result).toMatchObject({ code: 1, reruns: 1 });
    expect(lines.filter((l) => l.includes("stalled; stopped"))).toHaveLength(2);
    expect(lines.some((l) => l.includes("run 1"))).toBe(false);
    expect(laneSummary(result, 1)).toMatch(/^w {2}FAILED \(exit 1\) in \d+ s \(1 stalled run run again\)\n$/);
  });

  it("never runs a failed command again", async () => {
    const { result, lines } = await lane([command([], 3), command([])]);
    expect(result).toMatchObject({ code: 3, reruns: 0 });
    expect(lines).toEqual(["w | run 1\n"]);
    expect(laneSummary(result, 1)).toMatch(/^w {2}FAILED \(exit 3\) in \d+ s\n$/);
  });

  it("stops a run whose files all ended and passed while the run hung, counts it passed and goes on", async () => {
    const hung = endedButHung(0);
    const { result, lines } = await lane([hung, command([])]);
    expect(result).toMatchObject({ code: 0, reruns: 0 });
    expect(lines).toEqual([
      `w | ${ENDED_MARK} 60 s: 48 files, 0 failed\n`,
      `w | ${hung.join(" ")}: every file ended (0 failed) and the run did not; stopped\n`,
      "w | run 1\n",
    ]);
  });

  it("fails the lane when such a run had a failed file, without running it again", async () => {
    const { result, lines } = await lane([endedButHung(2), command([])]);
    expect(result).toMatchObject({ code: 1, reruns: 0 });
    expect(lines.some((l) => l.includes("run 1"))).toBe(false);
  });
});
