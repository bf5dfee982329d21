/**
 * Figure 1b — figure 1 against the platform's floor.
 *
 * The same first-token overhead and Worker CPU as figure 1, measured in one
 * run on two Workers side by side: hermes-edge (direct WebSocket) and
 * `bench/platform-floor/` (the shape of its prompt path with nothing else in
 * it: two objects, two RPCs, two storage commits, one model request). Prompts
 * alternate between the two, so both see the same machine load. The floor's
 * numbers are the least any Worker of this design can reach on this machine
 * under wrangler dev; hermes-edge's minus the floor's is what its own code
 * costs.
 *
 *   npx tsx bench/platform-floor.ts [--quick]
 */
import { fileURLToPath } from "node:url";
import { startDevServer } from "../test/support/wrangler-dev.js";
import { PathRun } from "./first-token.js";
import { WsAcpClient } from "./lib/acp-client.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { cpuMsOf, findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, sleep } from "./lib/turns.js";

const FLOOR_DIR = fileURLToPath(new URL("./platform-floor/", import.meta.url));
const GAP_MS = 10;

export async function measurePlatformFloor(ctx: FigureContext): Promise<SummaryRow[]> {
  const n = ctx.quick ? 20 : 200;
  const warmup = ctx.quick ? 3 : 10;
  const service = await startService();
  ctx.defer(() => service.stop());
  const floorServer = await startDevServer({ vars: { OPENAI_BASE_URL: `${service.mock.url}/v1` }, cwd: FLOOR_DIR, migrate: false, startTimeoutMs: 90_000 });
  ctx.defer(() => floorServer.stop());
  const floorPid = findWorkerPid(floorServer);

  const floorClient = await WsAcpClient.open(floorServer.wsUrl, undefined);
  ctx.defer(() => floorClient.close());
  const direct = await WsAcpClient.open(service.wsUrl, TOKEN);
  ctx.defer(() => direct.close());
  await initialize(floorClient);
  await initialize(direct);

  const floor = new PathRun("floor", floorClient);
  const hermes = new PathRun("direct", direct);
  const floorCpuMs = () => (floorPid === undefined ? NaN : (cpuMsOf(floorPid) ?? NaN));
  const hermesCpuMs = () => service.workerCpuMs() ?? NaN;
  ctx.log(`${n} prompts per Worker after ${warmup} warm-up rounds; each round: 1 prompt to the floor, 1 to hermes-edge`);
  // Whole-run totals of each workerd, as in figure 1: /proc counts in 10 ms ticks, and work a
  // Worker does after its prompt (the search feed, alarms) belongs to it too.
  const cpuBefore = { floor: floorCpuMs(), hermes: hermesCpuMs() };
  for (let i = 0; i < warmup + n; i++) {
    ctx.checkTime(`round ${i}`);
    const record = i >= warmup;
    for (const path of [floor, hermes]) {
      await path.prompt(service, i, record);
      await sleep(GAP_MS);
    }
    if (i % 50 === 49) {
      service.mock.reset();
      ctx.log(`  ${i + 1}/${warmup + n} rounds`);
    }
  }

  const rows: string[][] = [];
  const out: SummaryRow[] = [];
  const medians: Record<string, number> = {};
  for (const path of [floor, hermes]) {
    const over = summarize(path.samples.map((s) => s.overhead));
    medians[path.name] = over.p50;
    rows.push(
      latencyRow(`${path.name}: first-token overhead`, over),
      latencyRow(`${path.name}:   prompt sent → mock request (in)`, summarize(path.samples.map((s) => s.inbound))),
      latencyRow(`${path.name}:   mock first token → client (out)`, summarize(path.samples.map((s) => s.outbound))),
    );
  }
  ctx.log();
  ctx.log("all times in ms");
  ctx.log(table(LATENCY_HEADER, rows));
  const floorCpu = (floorCpuMs() - cpuBefore.floor) / (warmup + n);
  const hermesCpu = (hermesCpuMs() - cpuBefore.hermes) / (warmup + n);
  ctx.log(`Worker CPU per prompt: floor ${fmt(floorCpu)} ms, hermes-edge ${fmt(hermesCpu)} ms (one prompt in 10 also opens its session)`);
  out.push(
    { figure: "1b platform floor", metric: "floor: first-token overhead, median", value: `${fmt(medians["floor"]!)} ms`, target: "≤ 2.5 ms (the service's target)", ...against(medians["floor"]!, 2.5, "ms") },
    { figure: "1b platform floor", metric: "hermes-edge direct, same run, median", value: `${fmt(medians["direct"]!)} ms (+${fmt(medians["direct"]! - medians["floor"]!)} over the floor)`, target: "≤ 2.5 ms", ...against(medians["direct"]!, 2.5, "ms") },
    { figure: "1b platform floor", metric: "floor: Worker CPU per prompt", value: `${fmt(floorCpu)} ms`, target: "≤ 4 ms (the service's target)", ...against(floorCpu, 4, "ms") },
    { figure: "1b platform floor", metric: "hermes-edge: Worker CPU per prompt, same run", value: `${fmt(hermesCpu)} ms (+${fmt(hermesCpu - floorCpu)} over the floor)`, target: "≤ 4 ms", ...against(hermesCpu, 4, "ms") },
  );
  return out;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 1b", "first-token overhead and CPU against the platform floor", 10 * 60_000, measurePlatformFloor);
}
