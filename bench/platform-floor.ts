/**
 * Figure 1b — figure 1 against the platform's floor.
 *
 * Figure 1's first-token overhead and Worker CPU, measured in one run on
 * three Workers side by side (four with `--baseline`), prompts taking turns so
 * that all see the same machine load:
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
 * The Workers run on a core of their own, away from the bench's client, the
 * mock model and wrangler (`bench/lib/cpu-pin.ts`); `--no-pin` shares the
 * cores as figure 1 does. With `--baseline DIR` (or BENCH_BASELINE_DIR) a
 * second checkout of hermes-edge takes its turn in every round too, so a
 * change is measured against the code before it in the same run.
 *
 *   npx tsx bench/platform-floor.ts [--quick] [--no-pin] [--baseline DIR]
 */
import { fileURLToPath } from "node:url";
import { startDevServer, type DevServer } from "../test/support/wrangler-dev.js";
import { PathRun } from "./first-token.js";
import { WsAcpClient } from "./lib/acp-client.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { corePlan, pinBench, pinWorker, type CorePlan } from "./lib/cpu-pin.js";
import { checkouts, startServiceIn } from "./lib/baseline.js";
import { cpuMsOf, findWorkerPid, type Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, sleep } from "./lib/turns.js";

const FLOOR_DIR = fileURLToPath(new URL("./platform-floor/", import.meta.url));
const GAP_MS = 10;

interface Subject {
  path: PathRun;
  /** The service whose mock records this subject's model calls. */
  service: Service;
  cpuMs(): number;
}

export async function measurePlatformFloor(ctx: FigureContext): Promise<SummaryRow[]> {
  const n = ctx.quick ? 20 : 200;
  const warmup = ctx.quick ? 3 : 10;
  const plan = process.argv.includes("--no-pin") ? null : corePlan();
  if (plan) ctx.defer(pinBench(plan));
  ctx.log(plan ? plan.description : "nothing pinned: the Workers share the cores with the bench and wrangler");
  const services: { label: string; service: Service; client: WsAcpClient }[] = [];
  for (const { label, dir } of checkouts()) {
    const started = await startServiceIn(dir);
    ctx.defer(() => started.service.stop());
    ctx.defer(() => started.client.close());
    pinUnderTest(plan, `${label}hermes-edge`, started.service.server);
    if (label) ctx.log(`${label}${dir}`);
    services.push({ label, ...started });
  }
  // The floors ask this tree's mock, which records their calls too.
  const mockOwner = services.at(-1)!.service;
  const startFloor = async (): Promise<DevServer> => {
    const server = await startDevServer({ vars: { OPENAI_BASE_URL: `${mockOwner.mock.url}/v1` }, cwd: FLOOR_DIR, migrate: false, startTimeoutMs: 90_000 });
    ctx.defer(() => server.stop());
    pinUnderTest(plan, "the floor", server);
    return server;
  };
  const floorTwo = await startFloor();
  const floorOne = await startFloor();

  const floor = async (name: string, url: string, server: DevServer): Promise<Subject> => {
    const client = await WsAcpClient.open(url, undefined);
    ctx.defer(() => client.close());
    await initialize(client);
    const pid = findWorkerPid(server);
    return { path: new PathRun(name, client), service: mockOwner, cpuMs: () => (pid === undefined ? NaN : (cpuMsOf(pid) ?? NaN)) };
  };
  const subjects: Subject[] = [await floor("floor, one object", `${floorOne.wsUrl}?single`, floorOne), await floor("floor, two objects", floorTwo.wsUrl, floorTwo)];
  for (const { label, service, client } of services) {
    await initialize(client);
    subjects.push({ path: new PathRun(`${label}hermes-edge, direct`, client), service, cpuMs: () => service.workerCpuMs() ?? NaN });
  }

  ctx.log(`${n} prompts per Worker after ${warmup} warm-up rounds; each round: 1 prompt to each, in turn, starting with the next one each round; a new session every 10`);
  // Whole-run totals per workerd, as in figure 1: work a Worker does after its answer (the search feed, alarms) is its own too.
  const cpuBefore = subjects.map((s) => s.cpuMs());
  for (let i = 0; i < warmup + n; i++) {
    ctx.checkTime(`round ${i}`);
    // Each round starts with the next subject, so none always follows the same one (in one fixed order,
    // two runs of the same code read 0.2 ms apart by their places in the round).
    for (let k = 0; k < subjects.length; k++) {
      const { path, service } = subjects[(i + k) % subjects.length]!;
      await path.prompt(service, i, i >= warmup);
      await sleep(GAP_MS);
    }
    if (i % 50 === 49) {
      for (const { service } of services) service.mock.reset();
      ctx.log(`  ${i + 1}/${warmup + n} rounds`);
    }
  }
  const cpuPerPrompt = subjects.map((s, k) => (s.cpuMs() - cpuBefore[k]!) / (warmup + n));

  const rows: string[][] = [];
  const out: SummaryRow[] = [];
  const medians = subjects.map(({ path }, k) => {
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
    return { firstToken: over.p50, cpu: cpuPerPrompt[k]! };
  });
  // Issue 25, target 7: what hermes-edge's own code adds, read against the two-object floor measured in this run.
  const twoObjects = medians[1]!;
  services.forEach(({ label }, k) => {
    const hermes = medians[2 + k]!;
    const gap = { firstToken: hermes.firstToken - twoObjects.firstToken, cpu: hermes.cpu - twoObjects.cpu };
    out.push(
      { figure: "1b platform floor", metric: `${label}hermes-edge − two-object floor: first-token overhead, median`, value: `${signed(gap.firstToken)} ms`, target: "≤ +1.0 ms (issue 25)", ...against(gap.firstToken, 1.0, "ms") },
      { figure: "1b platform floor", metric: `${label}hermes-edge − two-object floor: Worker CPU per prompt`, value: `${signed(gap.cpu)} ms`, target: "≤ +1.5 ms (issue 25)", ...against(gap.cpu, 1.5, "ms") },
    );
  });
  ctx.log();
  ctx.log("all times in ms");
  ctx.log(table(LATENCY_HEADER, rows));
  ctx.log(`Worker CPU per prompt: ${subjects.map(({ path }, k) => `${path.name} ${fmt(cpuPerPrompt[k]!)} ms`).join(", ")}`);
  return out;
}

function signed(ms: number): string {
  return ms < 0 ? fmt(ms) : `+${fmt(ms)}`;
}

function pinUnderTest(plan: CorePlan | null, name: string, server: DevServer): void {
  if (!plan) return;
  const pid = findWorkerPid(server);
  if (pid === undefined) throw new Error(`${name}: its Worker's workerd was not found, so it cannot be pinned (--no-pin runs without)`);
  pinWorker(plan, pid);
}

if (isMain(import.meta.url)) {
  await runFigure("figure 1b", "first-token overhead and CPU against the platform floor", 10 * 60_000, measurePlatformFloor);
}
