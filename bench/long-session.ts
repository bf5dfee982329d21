/**
 * Figure 8 — a long session at flat cost, and its memory (issue 25).
 *
 * 8a: short turns in two sessions, one of 10 turns of history and one of
 * 2,000. CPU per prompt (the time the Worker's workerd threads were on a CPU
 * over each block of prompts, `threadCpuMsOf`) and first-token overhead
 * (prompt sent → first agent chunk at the client, less the mock model's own
 * time to its first token, as in figure 1); the target is a ratio of at most
 * 1.3. The two sessions are prompted in alternating blocks, so both share the
 * machine's slow and fast spells: measured one after the other, the same code
 * read anywhere from 0.9× to 1.5×. The mock decodes and parses the requests'
 * bodies only after each block (`deferBodyParsing`): doing so for a 250 KB
 * request as it arrived took the bench's process 2–3 ms on the machine's two
 * cores, and the measured Worker's CPU and first token grew with it
 * (BENCHMARKS.md, figure 8, session 21). The whole latency is printed beside
 * it: at 2,000 turns it also holds the mock reading a 250 KB request, which is
 * the model's time, not the service's.
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
import { findWorkerPid, startService, threadCpuMsOf, TOKEN, type Service } from "./lib/service.js";
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

/**
 * The mock answers with three tokens (its default echoes the prompt, which would double a 200 KB history), and
 * usage as scripted: its estimate would parse the request.
 */
function resetMock(service: Service): void {
  service.mock.reset();
  service.mock.setScript("short", Array.from({ length: 5_000 }, () => ({ tokens: 3, usage: { prompt_tokens: 1_000, completion_tokens: 3 } })));
}

/** Prompts in a row to one session before the other's turn (see `flatCost`). */
const BLOCK = 10;

/** What a session's measured prompts cost, added up block by block. */
class Tally {
  cpuMs = 0;
  prompts = 0;
  /** First-token overheads: the latency less the mock's own time to its first token. */
  readonly overheads: number[] = [];
  /** Latencies, prompt sent → first agent chunk. */
  readonly latencies: number[] = [];
  /** The overhead's two legs: prompt sent → the mock saw the request, and the mock's first token → the client. */
  readonly inbound: number[] = [];
  readonly outbound: number[] = [];

  summary(): { cpuMs: number; firstTokenMs: number; latencyMs: number; inMs: number; outMs: number } {
    return {
      cpuMs: this.cpuMs / this.prompts,
      firstTokenMs: summarize(this.overheads).p50,
      latencyMs: summarize(this.latencies).p50,
      inMs: summarize(this.inbound).p50,
      outMs: summarize(this.outbound).p50,
    };
  }
}

/** The service under test, its Worker's workerd and the client that prompts it. */
interface Bench {
  service: Service;
  workerPid: number;
  client: WsAcpClient;
}

/** One session's side of the figure: its prompts' tag, its tally, and the fewest messages its requests may carry. */
interface Side {
  sessionId: string;
  label: string;
  tally: Tally;
  /** A history compacted away would measure nothing. */
  messages: number;
}

/** `BLOCK` prompts to one session, added to its tally. */
async function measureBlock({ service, workerPid, client }: Bench, { sessionId, label, tally, messages }: Side): Promise<void> {
  const cpuMs = () => threadCpuMsOf(workerPid) ?? Number.NaN;
  const before = cpuMs();
  const runs: { tag: string; run: Awaited<ReturnType<typeof runPrompt>> }[] = [];
  for (let i = 0; i < BLOCK; i++) {
    const tag = `${label} ${tally.prompts + i}`;
    runs.push({ tag, run: await runPrompt(client, sessionId, `${tag} [[mock:short]]`) });
  }
  tally.cpuMs += cpuMs() - before;
  tally.prompts += BLOCK;
  // The mock decodes and parses what it recorded only now, outside the measured CPU.
  for (const { tag, run } of runs) {
    const call = callFor(service.mock, tag);
    const o = call && run.firstChunkAt !== undefined ? overheadOf(run.sentAt, run.firstChunkAt, call) : undefined;
    if (!call || !o || run.firstChunkAt === undefined) throw new Error(`${tag}: no agent_message_chunk, or no model call the mock recorded a first token for`);
    if (call.body.messages.length < messages) throw new Error(`${tag}: the request held ${call.body.messages.length} messages, not ${messages} or more`);
    tally.overheads.push(o.overhead);
    tally.latencies.push(run.firstChunkAt - run.sentAt);
    tally.inbound.push(o.inbound);
    tally.outbound.push(o.outbound);
  }
}

async function grow(service: Service, client: WsAcpClient, sessionId: string, turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await runPrompt(client, sessionId, `filler ${i} [[mock:short]]`);
    if (i % 200 === 199) resetMock(service); // the mock keeps every request otherwise
  }
}

async function flatCost(ctx: FigureContext, dir: string | undefined, name: string): Promise<SummaryRow[]> {
  const [small, large, samples] = ctx.quick ? [10, 300, 20] : [10, 2_000, 400];
  if (dir) process.env["BENCH_SERVICE_DIR"] = dir;
  else delete process.env["BENCH_SERVICE_DIR"];
  const service = await startService({ mock: { deferBodyParsing: true } });
  try {
    const workerPid = findWorkerPid(service.server);
    if (workerPid === undefined) throw new Error("the Worker's workerd process was not found");
    resetMock(service);
    const client = await WsAcpClient.open(service.wsUrl, TOKEN);
    await initialize(client);
    // The long session first: the short one is then fresh in memory when the blocks start.
    const long = (await newSession(client)).sessionId;
    await grow(service, client, long, large);
    ctx.checkTime(`${name}: grown`);
    const short = (await newSession(client)).sessionId;
    await grow(service, client, short, small);
    resetMock(service);
    const [atSmall, atLarge] = [new Tally(), new Tally()];
    const bench: Bench = { service, workerPid, client };
    const sides: Side[] = [
      { sessionId: short, label: "small", tally: atSmall, messages: 2 * small },
      { sessionId: long, label: "large", tally: atLarge, messages: 2 * large },
    ];
    for (let b = 0; b < samples / BLOCK; b++) {
      // Each round starts with the other session, so neither always follows the same one.
      for (const side of b % 2 === 0 ? sides : [...sides].reverse()) {
        await measureBlock(bench, side);
        // The mock keeps every request, at 2,000 turns 251 KB each: this process holds ten at most.
        resetMock(service);
      }
    }
    await client.close();
    const [at10, atBig] = [atSmall.summary(), atLarge.summary()];
    ctx.log(
      `  ${name}: at ${small} turns ${fmt(at10.cpuMs)} ms CPU/prompt, first-token overhead ${fmt(at10.firstTokenMs)} ms ` +
        `(in ${fmt(at10.inMs)}, out ${fmt(at10.outMs)}; latency ${fmt(at10.latencyMs)}); ` +
        `at ${large}: ${fmt(atBig.cpuMs)} ms, ${fmt(atBig.firstTokenMs)} ms (in ${fmt(atBig.inMs)}, out ${fmt(atBig.outMs)}; latency ${fmt(atBig.latencyMs)}); ` +
        `${samples} prompts each, in alternating blocks of ${BLOCK}`,
    );
    const row = (metric: string, a: number, b: number): SummaryRow => ({
      figure: "8 long session",
      metric: `${name}: ${metric}, ${large} vs ${small} turns`,
      value: `${fmt(b)} / ${fmt(a)} ms = ${fmt(b / a)}×`,
      target: `≤ ${RATIO_TARGET}×`,
      status: name === "this checkout" ? (b / a <= RATIO_TARGET ? "met" : "missed") : "info",
    });
    return [
      row("CPU per prompt", at10.cpuMs, atBig.cpuMs),
      row("first-token overhead", at10.firstTokenMs, atBig.firstTokenMs),
      { ...row("first-token latency, with the mock's own time", at10.latencyMs, atBig.latencyMs), target: "—", status: "info" },
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
