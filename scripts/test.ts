/**
 * `npm test`: the type check and every test project, as five lanes that run at
 * once. One vitest run takes its project groups one after another, and most of
 * the time one of them waits (on `wrangler dev`, Chromium, a subprocess) while a
 * core idles; side by side, the lanes keep both cores of a CI machine busy.
 *
 * - `typecheck`: `npm run typecheck`, at a lower priority (`nice`): it needs no server and nothing
 *   waits on it, so it takes the cores the other lanes leave idle, mostly at the end, when only the
 *   longest lanes still run (at the head of `checks` it delayed that lane by ~2.5 minutes);
 * - `checks`: the Node projects (unit, protocol, proxy, subprocess);
 * - `workers`: the Worker inside workerd (workers, then workers-alone);
 * - `e2e`: `wrangler dev` with the SDK client and the proxy;
 * - `browser`: the web client in Chromium.
 *
 * Each line a lane prints goes out as it comes, after the lane's name. The exit
 * code is non-zero when any lane failed; the summary at the end says which. A
 * vitest run that stalls runs once more (scripts/lib/lanes.ts).
 * `npm test -- <vitest arguments>` (a file filter, `--project x`) runs the type
 * check and then one `vitest run` with those arguments, as before.
 * @module
 */
import { laneSummary, passOnInterrupts, run, runLane, type Lane } from "./lib/lanes.js";

const vitest = (...projects: string[]) => ["npx", "vitest", "run", ...projects.flatMap((p) => ["--project", p])];

const LANES: Lane[] = [
  { name: "typecheck", commands: [["nice", "-n", "10", "npm", "run", "--silent", "typecheck"]] },
  { name: "checks", commands: [vitest("unit", "protocol", "proxy", "subprocess")] },
  // Two runs: one run of both projects twice hung, idle, after the last file of the first (vitest-pool-workers 0.15.1).
  { name: "workers", commands: [vitest("workers"), vitest("workers-alone")] },
  { name: "e2e", commands: [vitest("e2e")] },
  { name: "browser", commands: [vitest("browser")] },
];

async function main(args: string[]): Promise<number> {
  passOnInterrupts();
  if (args.length > 0) {
    const typecheck = await run(["npm", "run", "--silent", "typecheck"], "");
    if (typecheck.code !== 0) return typecheck.code;
    const ran = await run(["npx", "vitest", "run", ...args], "");
    return ran.stalled ? 1 : ran.code;
  }
  const width = Math.max(...LANES.map((l) => l.name.length));
  const results = await Promise.all(LANES.map((lane) => runLane(lane, width)));
  process.stdout.write("\n");
  for (const result of results) process.stdout.write(laneSummary(result, width));
  return results.some((r) => r.code !== 0) ? 1 : 0;
}

// Exit at once: a lane's stray handle (a process that outlived its vitest) must not keep `npm test` open.
process.exit(await main(process.argv.slice(2)));
