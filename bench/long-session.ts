/**
 * Figure 8 — a long session at flat cost, and its memory (issue 25).
 *
 * 8a: one session, short turns. CPU per prompt (utime+stime of the Worker's
 * workerd, over a run of prompts) and first-token overhead (prompt sent →
 * first agent chunk at the client, less the mock model's own time to its
 * first token, as in figure 1) at 10 turns of history and again at 2,000; the
 * target is a ratio of at most 1.3. The whole latency is printed beside it:
 * at 2,000 turns it also holds the mock reading and parsing a 250 KB request,
 * which is the model's time, not the service's.
 * 8b: one session given 50 prompts of 200 KB (10 MB of history) under
 * HERMES_CONTEXT_WINDOW=5000000, against a session of one short turn: the
 * growth of the Worker isolate's memory (its V8 heap with the array buffers
 * it holds outside it, `bench/lib/isolate-heap.ts`; the platform bounds an
 * isolate at 128 MB), its peak in use sampled every 10 ms (garbage not yet
 * collected included) against what an empty session retains; target < 100 MB.
 * The summed VmRSS of wrangler's workerd processes is printed beside it.
 *
 * Each runs against this checkout and, with BENCH_BASELINE_DIR (say /work/main),
 * against that checkout too, one after the other in the same run.
 *
 *   BENCH_BASELINE_DIR=/work/main npx tsx bench/long-session.ts [--quick]
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { WsAcpClient } from "./lib/acp-client.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { IsolateHeap, samplePeak } from "./lib/isolate-heap.js";
import { findWorkerPid, startService, TOKEN, type Service } from "./lib/service.js";
import { fmt, summarize } from "./lib/stats.js";
import { callFor, initialize, newSession, overheadOf, runPrompt } from "./lib/turns.js";

const RATIO_TARGET = 1.3;
const GROWTH_TARGET_MB = 100;

/** Summed VmRSS (MB) of the workerd processes in wrangler's process group. */
function workerdRssMb(service: Service): number {
  const pids = execFileSync("pgrep", ["-g", String(service.server.pid), "workerd"], { encoding: "utf8" }).trim().split("\n").map(Number);
  let kb = 0;
  for (const pid of pids) kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

/** The mock answers with three tokens (its default echoes the prompt, which would double a 200 KB history). */
function resetMock(service: Service): void {
  service.mock.reset();
  service.mock.setScript("short", Array.from({ length: 5_000 }, () => ({ tokens: 3 })));
}

interface Sample {
  cpuMs: number;
  /** Median first-token overhead: the latency less the mock's own time to its first token. */
  firstTokenMs: number;
  /** Median latency, prompt sent → first agent chunk. */
  latencyMs: number;
}

async function measureTurns(service: Service, client: WsAcpClient, sessionId: string, n: number, label: string): Promise<Sample> {
  const overheads: number[] = [];
  const latencies: number[] = [];
  const before = service.workerCpuMs() ?? 0;
  for (let i = 0; i < n; i++) {
    const tag = `${label} ${i}`;
    const run = await runPrompt(client, sessionId, `${tag} [[mock:short]]`);
    const call = callFor(service.mock, tag);
    const o = call && run.firstChunkAt !== undefined ? overheadOf(run.sentAt, run.firstChunkAt, call) : undefined;
    if (!o || run.firstChunkAt === undefined) throw new Error(`${tag}: no agent_message_chunk, or no model call the mock recorded a first token for`);
    overheads.push(o.overhead);
    latencies.push(run.firstChunkAt - run.sentAt);
  }
  const cpuMs = ((service.workerCpuMs() ?? 0) - before) / n;
  return { cpuMs, firstTokenMs: summarize(overheads).p50, latencyMs: summarize(latencies).p50 };
}

async function grow(service: Service, client: WsAcpClient, sessionId: string, turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await runPrompt(client, sessionId, `filler ${i} [[mock:short]]`);
    if (i % 200 === 199) resetMock(service); // the mock keeps every request otherwise
  }
}

async function flatCost(ctx: FigureContext, dir: string | undefined, name: string): Promise<SummaryRow[]> {
  const [small, large, samples] = ctx.quick ? [10, 300, 10] : [10, 2_000, 100];
  if (dir) process.env["BENCH_SERVICE_DIR"] = dir;
  else delete process.env["BENCH_SERVICE_DIR"];
  const service = await startService();
  try {
    resetMock(service);
    const client = await WsAcpClient.open(service.wsUrl, TOKEN);
    await initialize(client);
    const { sessionId } = await newSession(client);
    await grow(service, client, sessionId, small);
    const at10 = await measureTurns(service, client, sessionId, samples, "small");
    ctx.checkTime(`${name}: growing`);
    await grow(service, client, sessionId, large - small - samples);
    resetMock(service);
    const atLarge = await measureTurns(service, client, sessionId, samples, "large");
    await client.close();
    ctx.log(
      `  ${name}: at ${small} turns ${fmt(at10.cpuMs)} ms CPU/prompt, first-token overhead ${fmt(at10.firstTokenMs)} ms (latency ${fmt(at10.latencyMs)}); ` +
        `at ${large}: ${fmt(atLarge.cpuMs)} ms, ${fmt(atLarge.firstTokenMs)} ms (latency ${fmt(atLarge.latencyMs)})`,
    );
    const row = (metric: string, a: number, b: number): SummaryRow => ({
      figure: "8 long session",
      metric: `${name}: ${metric}, ${large} vs ${small} turns`,
      value: `${fmt(b)} / ${fmt(a)} ms = ${fmt(b / a)}×`,
      target: `≤ ${RATIO_TARGET}×`,
      status: name === "this checkout" ? (b / a <= RATIO_TARGET ? "met" : "missed") : "info",
    });
    return [
      row("CPU per prompt", at10.cpuMs, atLarge.cpuMs),
      row("first-token overhead", at10.firstTokenMs, atLarge.firstTokenMs),
      { ...row("first-token latency, with the mock's own time", at10.latencyMs, atLarge.latencyMs), target: "—", status: "info" },
    ];
  } finally {
    await service.stop();
  }
}

async function memory(ctx: FigureContext, dir: string | undefined, name: string): Promise<SummaryRow[]> {
  const [turns, kb] = ctx.quick ? [10, 200] : [50, 200];
  if (dir) process.env["BENCH_SERVICE_DIR"] = dir;
  else delete process.env["BENCH_SERVICE_DIR"];
  const service = await startService({ extraVars: { HERMES_CONTEXT_WINDOW: "5000000" } });
  const workerPid = findWorkerPid(service.server);
  if (workerPid === undefined) throw new Error("the Worker's workerd process was not found");
  const heap = await IsolateHeap.attach(workerPid);
  try {
    resetMock(service);
    const client = await WsAcpClient.open(service.wsUrl, TOKEN);
    await initialize(client);
    const empty = await newSession(client);
    await runPrompt(client, empty.sessionId, "hello");
    const baseHeap = await heap.retained();
    const baseRss = workerdRssMb(service);
    const { sessionId } = await newSession(client);
    const cpuBefore = service.workerCpuMs() ?? 0;
    const big = "lorem ipsum dolor sit amet ".repeat(Math.ceil((kb * 1024) / 27)).slice(0, kb * 1024);
    let peakRss = baseRss;
    const sampler = samplePeak(heap);
    for (let i = 0; i < turns; i++) {
      await runPrompt(client, sessionId, `${i} [[mock:short]] ${big}`, 120_000);
      peakRss = Math.max(peakRss, workerdRssMb(service));
      if (i % 10 === 9) resetMock(service);
    }
    const peakHeap = await sampler.stop();
    const cpuPerTurn = ((service.workerCpuMs() ?? 0) - cpuBefore) / turns;
    const retainedHeap = await heap.retained();
    const mb = (bytes: number) => bytes / 1024 / 1024;
    const growth = mb(peakHeap - baseHeap);
    await client.close();
    ctx.log(
      `  ${name}: isolate heap ${fmt(mb(baseHeap))} MB retained with an empty session; with ${(turns * kb) / 1024} MB of history, ` +
        `peak in use ${fmt(mb(peakHeap))} MB, retained ${fmt(mb(retainedHeap))} MB; workerd RSS ${fmt(baseRss, 0)} → peak ${fmt(peakRss, 0)} MB; ${fmt(cpuPerTurn)} ms CPU/turn`,
    );
    return [
      {
        figure: "8 long session",
        metric: `${name}: isolate heap growth (peak in use), ${turns} × ${kb} KB prompts`,
        value: `${fmt(growth, 0)} MB (peak ${fmt(mb(peakHeap), 0)}, base ${fmt(mb(baseHeap), 0)}, retained after GC ${fmt(mb(retainedHeap), 0)}; ${fmt(cpuPerTurn)} ms CPU/turn)`,
        target: `< ${GROWTH_TARGET_MB} MB`,
        status: name === "this checkout" ? (growth < GROWTH_TARGET_MB ? "met" : "missed") : "info",
      },
      {
        figure: "8 long session",
        metric: `${name}: workerd RSS growth (V8 sizes its heap lazily without a limit; not the isolate's memory)`,
        value: `${fmt(peakRss - baseRss, 0)} MB (peak ${fmt(peakRss, 0)}, base ${fmt(baseRss, 0)})`,
        target: "—",
        status: "info",
      },
    ];
  } finally {
    heap.close();
    await service.stop();
  }
}

export async function measureLongSession(ctx: FigureContext): Promise<SummaryRow[]> {
  const baseline = process.env["BENCH_BASELINE_DIR"];
  const own = process.env["BENCH_SERVICE_DIR"];
  const targets: [string | undefined, string][] = [[own, "this checkout"], ...(baseline ? [[baseline, "baseline"] as [string, string]] : [])];
  const rows: SummaryRow[] = [];
  const only = process.env["BENCH_LONG_ONLY"]; // "turns" or "memory"
  for (const [dir, name] of targets) if (only !== "memory") rows.push(...(await flatCost(ctx, dir, name)));
  for (const [dir, name] of targets) if (only !== "turns") rows.push(...(await memory(ctx, dir, name)));
  return rows;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 8", "a long session: per-turn cost at 2,000 turns and memory at 10 MB of history", 40 * 60_000, measureLongSession);
}
