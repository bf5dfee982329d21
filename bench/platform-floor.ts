/**
 * Figure 1b — figure 1 against the platform's floor.
 *
 * Figure 1's first-token overhead and Worker CPU, measured in one run on
 * three Workers side by side, prompts taking turns so that all see the same
 * machine load:
 * - hermes-edge over its direct WebSocket;
 * - `bench/platform-floor/` in the service's shape (connection object →
 *   session object → connection object, two storage commits, one model
 *   request, nothing else);
 * - the same floor in one object (no RPC at all), the least any design can do
 *   that stores what it sends.
 * Each floor runs in a `wrangler dev` of its own, so each Worker's CPU is its
 * own process's total. The floors' numbers are what wrangler dev on this
 * machine gives before any of hermes-edge's code runs; hermes-edge's minus the
 * two-object floor's is what its own code costs.
 *
 *   npx tsx bench/platform-floor.ts [--quick]
 */
import { fileURLToPath } from "node:url";
import { startDevServer, type DevServer } from "../test/support/wrangler-dev.js";
import { PathRun } from "./first-token.js";
import { WsAcpClient } from "./lib/acp-client.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { cpuMsOf, findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, sleep } from "./lib/turns.js";

const FLOOR_DIR = fileURLToPath(new URL("./platform-floor/", import.meta.url));
const GAP_MS = 10;

interface Subject {
  path: PathRun;
  cpuMs(): number;
}

export async function measurePlatformFloor(ctx: FigureContext): Promise<SummaryRow[]> {
  const n = ctx.quick ? 20 : 200;
  const warmup = ctx.quick ? 3 : 10;
  const service = await startService();
  ctx.defer(() => service.stop());
  const startFloor = async (): Promise<DevServer> => {
    const server = await startDevServer({ vars: { OPENAI_BASE_URL: `${service.mock.url}/v1` }, cwd: FLOOR_DIR, migrate: false, startTimeoutMs: 90_000 });
    ctx.defer(() => server.stop());
    return server;
  };
  const floorTwo = await startFloor();
  const floorOne = await startFloor();

  const subject = async (name: string, url: string, token: string | undefined, cpuMs: () => number): Promise<Subject> => {
    const client = await WsAcpClient.open(url, token);
    ctx.defer(() => client.close());
    await initialize(client);
    return { path: new PathRun(name, client), cpuMs };
  };
  const processCpu = (server: DevServer) => {
    const pid = findWorkerPid(server);
    return () => (pid === undefined ? NaN : (cpuMsOf(pid) ?? NaN));
  };
  const subjects = [
    await subject("floor, one object", `${floorOne.wsUrl}?single`, undefined, processCpu(floorOne)),
    await subject("floor, two objects", floorTwo.wsUrl, undefined, processCpu(floorTwo)),
    await subject("hermes-edge, direct", service.wsUrl, TOKEN, () => service.workerCpuMs() ?? NaN),
  ];

  ctx.log(`${n} prompts per Worker after ${warmup} warm-up rounds; each round: 1 prompt to each, in turn; a new session every 10`);
  // Whole-run totals per workerd, as in figure 1: work a Worker does after its answer (the search feed, alarms) is its own too.
  const cpuBefore = subjects.map((s) => s.cpuMs());
  for (let i = 0; i < warmup + n; i++) {
    ctx.checkTime(`round ${i}`);
    for (const { path } of subjects) {
      await path.prompt(service, i, i >= warmup);
      await sleep(GAP_MS);
    }
    if (i % 50 === 49) {
      service.mock.reset();
      ctx.log(`  ${i + 1}/${warmup + n} rounds`);
    }
  }
  const cpuPerPrompt = subjects.map((s, k) => (s.cpuMs() - cpuBefore[k]!) / (warmup + n));

  const rows: string[][] = [];
  const out: SummaryRow[] = [];
  subjects.forEach(({ path }, k) => {
    const over = summarize(path.samples.map((s) => s.overhead));
    rows.push(
      latencyRow(`${path.name}: first-token overhead`, over),
      latencyRow(`${path.name}:   prompt sent → mock request (in)`, summarize(path.samples.map((s) => s.inbound))),
      latencyRow(`${path.name}:   mock first token → client (out)`, summarize(path.samples.map((s) => s.outbound))),
    );
    out.push(
      { figure: "1b platform floor", metric: `${path.name}: first-token overhead, median`, value: `${fmt(over.p50)} ms`, target: "≤ 2.5 ms (figure 1, direct)", ...against(over.p50, 2.5, "ms") },
      { figure: "1b platform floor", metric: `${path.name}: Worker CPU per prompt`, value: `${fmt(cpuPerPrompt[k]!)} ms`, target: "≤ 4 ms (figure 1)", ...against(cpuPerPrompt[k]!, 4, "ms") },
    );
  });
  // Issue 25, target 7: what hermes-edge's own code adds, read against the two-object floor measured in this run.
  const [, twoObjects, hermes] = subjects.map(({ path }, k) => ({ firstToken: summarize(path.samples.map((s) => s.overhead)).p50, cpu: cpuPerPrompt[k]! }));
  const gap = { firstToken: hermes!.firstToken - twoObjects!.firstToken, cpu: hermes!.cpu - twoObjects!.cpu };
  out.push(
    { figure: "1b platform floor", metric: "hermes-edge − two-object floor: first-token overhead, median", value: `+${fmt(gap.firstToken)} ms`, target: "≤ +1.0 ms (issue 25)", ...against(gap.firstToken, 1.0, "ms") },
    { figure: "1b platform floor", metric: "hermes-edge − two-object floor: Worker CPU per prompt", value: `+${fmt(gap.cpu)} ms`, target: "≤ +1.5 ms (issue 25)", ...against(gap.cpu, 1.5, "ms") },
  );
  ctx.log();
  ctx.log("all times in ms");
  ctx.log(table(LATENCY_HEADER, rows));
  ctx.log(`Worker CPU per prompt: ${subjects.map(({ path }, k) => `${path.name} ${fmt(cpuPerPrompt[k]!)} ms`).join(", ")}`);
  return out;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 1b", "first-token overhead and CPU against the platform floor", 10 * 60_000, measurePlatformFloor);
}
