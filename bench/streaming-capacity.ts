/**
 * Figure 2b — streaming capacity of one session (issue 25, target 7: ≥ 25,000 deltas/s).
 *
 * The mock streams `t0 t1 … t{N-1}`, one token per SSE event, as fast as it
 * can (no pacing: every event is written back to back, so the mock finishes
 * long before the service has read them), and the direct WebSocket client
 * measures how fast the deltas come out of the service:
 * - capacity = N ÷ (last agent_message_chunk received − first one received), deltas/s;
 * - end to end = N ÷ (last agent_message_chunk received − session/prompt sent), deltas/s.
 * "Delta" is one model content delta (one SSE event of the mock), not one
 * session/update: the service coalesces deltas into fewer updates. Each answer
 * is checked: the text is exactly what the mock sent, tokens in order, seqs
 * strictly increasing with no gap, `_hermes/turn_ended` last.
 * The Worker's CPU (utime + stime of its workerd) per 1,000 deltas is printed
 * beside it; it is less sensitive to other load on the machine than the rate.
 *
 * Beside it, in the same rounds and against the same mock, the reading floor
 * (bench/lib/read-floor.ts): a bare Worker that only reads, decodes and parses
 * the same stream; its deltas ÷ (last read − first read) is what this machine's
 * workerd allows any service at all.
 *
 * With BENCH_BASELINE_DIR (or `--baseline DIR`) both checkouts run at once, each
 * in its own `wrangler dev`, and trials alternate between them, so before and
 * after share the machine's load trial by trial.
 *
 *   BENCH_BASELINE_DIR=/work/main npx tsx bench/streaming-capacity.ts [--quick]
 */
import type { WsAcpClient } from "./lib/acp-client.js";
import { BASELINE_LABEL, checkouts, startServiceIn } from "./lib/baseline.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { ReadFloor, type FloorRead } from "./lib/read-floor.js";
import type { Service } from "./lib/service.js";
import { fmt, summarize, table } from "./lib/stats.js";
import { agentText, callFor, checkSeqs, initialize, isAgentChunk, newSession, nonce, runPrompt, sleep, tokenText } from "./lib/turns.js";

const TARGET_DELTAS_PER_S = 25_000;

interface Trial {
  /** Deltas ÷ (last chunk − first chunk), per second. */
  capacity: number;
  /** Deltas ÷ (last chunk − prompt sent), per second. */
  endToEnd: number;
  /** The mock's own first → last event, ms (shows it outruns the service). */
  mockMs: number;
  updates: number;
  /** Worker CPU (ms) per 1,000 deltas over the whole prompt; NaN when the process is not found. */
  cpuPerK: number;
  complete: boolean;
}

interface Target {
  label: string;
  dir: string;
  service: Service;
  client: WsAcpClient;
  trials: Trial[];
}

async function runTrial(ctx: FigureContext, t: Target, index: number, deltas: number): Promise<Trial> {
  const key = `capacity-${index}`;
  t.service.mock.setScript(key, [{ tokens: deltas, recordChunkTimes: true }]);
  const session = await newSession(t.client);
  const tag = nonce("capacity", index);
  const cpuBefore = t.service.workerCpuMs();
  const run = await runPrompt(t.client, session.sessionId, `Stream as fast as you can ${tag} [[mock:${key}]]`, 120_000);
  const cpuAfter = t.service.workerCpuMs();
  const call = callFor(t.service.mock, tag, key);
  const written = call?.chunkWrittenAt;
  if (!written || written.length < deltas) throw new Error(`${t.label}trial ${index}: no mock record of its ${deltas} deltas`);
  const chunks = run.frames.filter(isAgentChunk);
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  if (!first || !last) throw new Error(`${t.label}trial ${index}: no agent_message_chunk arrived`);
  const text = agentText(run.frames);
  const seqs = checkSeqs(run.frames, session.baseSeq);
  const trial: Trial = {
    capacity: deltas / ((last.at - first.at) / 1000),
    endToEnd: deltas / ((last.at - run.sentAt) / 1000),
    mockMs: written[deltas - 1]! - written[0]!,
    updates: chunks.length,
    cpuPerK: cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : ((cpuAfter - cpuBefore) / deltas) * 1000,
    // Equal to the mock's exact text means complete and in order (every token is distinct).
    complete: text === tokenText(deltas) && seqs.ok && run.reply.result?.stopReason === "end_turn",
  };
  ctx.log(
    `  ${t.label}trial ${index}: ${fmt(trial.capacity, 0)} deltas/s first→last, ${fmt(trial.endToEnd, 0)} prompt→last; ` +
      `mock wrote all in ${fmt(trial.mockMs)} ms; ${trial.updates} updates; ${fmt(trial.cpuPerK)} ms Worker CPU per 1,000 deltas; ` +
      `${trial.complete ? "complete and in order" : `INCOMPLETE (text ${text === tokenText(deltas) ? "ok" : "differs"}, seqs ${seqs.problem ?? "ok"}, stop ${run.reply.result?.stopReason})`}`,
  );
  t.client.forgetSession(session.sessionId);
  t.service.mock.reset();
  await sleep(200);
  return trial;
}

export async function measureStreamingCapacity(ctx: FigureContext): Promise<SummaryRow[]> {
  const deltas = ctx.quick ? 2_000 : 20_000;
  const trials = ctx.quick ? 2 : 7;
  const targets: Target[] = [];
  for (const { label, dir } of checkouts()) {
    const { service, client } = await startServiceIn(dir);
    ctx.defer(async () => {
      await client.close();
      await service.stop();
    });
    ctx.log(`${label}${dir}: wrangler dev up in ${service.startSeconds.toFixed(1)} s; HERMES_COALESCE_MS default`);
    await initialize(client);
    // One short turn and one small stream first, so no trial pays for code loading and the first D1 writes.
    const warm = await newSession(client);
    await runPrompt(client, warm.sessionId, `warm up ${nonce("warm", 0)}`);
    targets.push({ label, dir, service, client, trials: [] });
  }
  ctx.log(`${trials} trials of ${deltas} deltas per checkout, the mock unpaced, one new session each${targets.length > 1 ? ", alternating checkouts" : ""}`);
  const floor = await ReadFloor.start();
  ctx.defer(() => floor.stop());
  const floorReads: FloorRead[] = [];
  const floorTrial = async (i: number, n: number): Promise<FloorRead> => {
    const read = await floor.readAnswer(targets[targets.length - 1]!.service.mock, `floor-${i}`, n);
    ctx.log(`  reading floor: trial ${i}: ${fmt(n / (read.ms / 1000), 0)} deltas/s (${read.reads} reads); ${fmt((read.cpuMs / n) * 1000)} ms Worker CPU per 1,000 deltas`);
    await sleep(200);
    return read;
  };
  for (const t of targets) await runTrial(ctx, t, 0, Math.min(deltas, 2_000)); // warm-up, not counted
  await floorTrial(0, Math.min(deltas, 2_000));
  for (let i = 1; i <= trials; i++) {
    for (const t of targets) {
      ctx.checkTime(`${t.label}trial ${i}`);
      t.trials.push(await runTrial(ctx, t, i, deltas));
    }
    floorReads.push(await floorTrial(i, deltas));
  }

  const rows: SummaryRow[] = [];
  const lines: string[][] = [];
  for (const t of targets) {
    const cap = summarize(t.trials.map((r) => r.capacity));
    const e2e = summarize(t.trials.map((r) => r.endToEnd));
    const cpu = summarize(t.trials.map((r) => r.cpuPerK));
    const updates = summarize(t.trials.map((r) => r.updates));
    const mock = summarize(t.trials.map((r) => r.mockMs));
    const complete = t.trials.every((r) => r.complete);
    lines.push(
      [`${t.label}deltas/s, first → last chunk`, String(cap.n), fmt(cap.min, 0), fmt(cap.p50, 0), fmt(cap.max, 0)],
      [`${t.label}deltas/s, prompt sent → last chunk`, String(e2e.n), fmt(e2e.min, 0), fmt(e2e.p50, 0), fmt(e2e.max, 0)],
      [`${t.label}Worker CPU per 1,000 deltas (ms)`, String(cpu.n), fmt(cpu.min), fmt(cpu.p50), fmt(cpu.max)],
      [`${t.label}updates per answer`, String(updates.n), fmt(updates.min, 0), fmt(updates.p50, 0), fmt(updates.max, 0)],
      [`${t.label}mock, first → last event written (ms)`, String(mock.n), fmt(mock.min), fmt(mock.p50), fmt(mock.max)],
    );
    const baseline = t.label === BASELINE_LABEL;
    rows.push(
      {
        figure: "2b streaming capacity",
        metric: `${t.label}deltas/s of one session, first → last chunk, ${deltas} deltas (median of ${cap.n})`,
        value: `${fmt(cap.p50, 0)} (min ${fmt(cap.min, 0)}, max ${fmt(cap.max, 0)})`,
        target: baseline ? "—" : `≥ ${fmt(TARGET_DELTAS_PER_S, 0)}`,
        status: baseline ? "info" : cap.p50 >= TARGET_DELTAS_PER_S ? "met" : "missed",
        ...(baseline || cap.p50 >= TARGET_DELTAS_PER_S ? {} : { note: `${(cap.p50 / TARGET_DELTAS_PER_S).toFixed(2)}× the target` }),
      },
      { figure: "2b streaming capacity", metric: `${t.label}deltas/s, prompt sent → last chunk (median)`, value: fmt(e2e.p50, 0), target: "—", status: "info" },
      { figure: "2b streaming capacity", metric: `${t.label}Worker CPU per 1,000 deltas (median)`, value: `${fmt(cpu.p50)} ms`, target: "—", status: "info" },
      {
        figure: "2b streaming capacity",
        metric: `${t.label}text complete and in order, seqs without gaps`,
        value: complete ? `yes, all ${t.trials.length}` : "NO",
        target: "all",
        status: complete ? "met" : "missed",
      },
    );
  }
  const floorRate = summarize(floorReads.map((r) => deltas / (r.ms / 1000)));
  const floorCpu = summarize(floorReads.map((r) => (r.cpuMs / deltas) * 1000));
  const floorReadsPer = summarize(floorReads.map((r) => r.reads / deltas));
  lines.push(
    ["reading floor: deltas/s, first → last read", String(floorRate.n), fmt(floorRate.min, 0), fmt(floorRate.p50, 0), fmt(floorRate.max, 0)],
    ["reading floor: Worker CPU per 1,000 deltas (ms)", String(floorCpu.n), fmt(floorCpu.min), fmt(floorCpu.p50), fmt(floorCpu.max)],
    ["reading floor: body reads per delta", String(floorReadsPer.n), fmt(floorReadsPer.min), fmt(floorReadsPer.p50), fmt(floorReadsPer.max)],
  );
  rows.push({
    figure: "2b streaming capacity",
    metric: `reading floor (a bare Worker that only reads and parses the stream): deltas/s, first → last read (median of ${floorRate.n})`,
    value: `${fmt(floorRate.p50, 0)} (min ${fmt(floorRate.min, 0)}, max ${fmt(floorRate.max, 0)}); ${fmt(floorCpu.p50)} ms CPU per 1,000 deltas; ${fmt(floorReadsPer.p50)} reads per delta`,
    target: "—",
    status: "info",
  });
  ctx.log();
  ctx.log(table(["what", "n", "min", "median", "max"], lines));
  return rows;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 2b", "streaming capacity of one session (deltas/s)", 12 * 60_000, measureStreamingCapacity);
}
