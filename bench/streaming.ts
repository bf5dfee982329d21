/**
 * Figure 2 — streaming a 20,000-token answer over the direct WebSocket.
 *
 * The mock streams `t0 t1 … t19999`, one token per SSE event, paced at
 * 0.075 ms per token (about 1.5 s in all, with ~1 ms timer ticks) and records
 * when it wrote each event. The client checks that the text arrives complete
 * and in order (and that seqs only grow), and measures:
 * - ratio = (last chunk received − prompt sent) ÷ (mock's last token written − mock request start),
 *   and the same from the first chunk to the last ÷ the mock's first to last token;
 * - lag of every token = client receive time of the update carrying it − mock write time of that token.
 * Then, not part of the target, slower paces (4,000, 2,000 and 1,000 tokens/s) show where the
 * service keeps up.
 *
 *   npx tsx bench/streaming.ts [--quick]
 */
import { WsAcpClient } from "./lib/acp-client.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN, type Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { agentText, callFor, checkSeqs, initialize, isAgentChunk, newSession, nonce, runPrompt, sleep, tokenText } from "./lib/turns.js";

const RATIO_TARGET = 1.1;
const LAG_BOUND_MS = 50;

interface Trial {
  ratio: number;
  ratioFirstToLast: number;
  clientMs: number;
  mockMs: number;
  updates: number;
  lags: number[];
  complete: boolean;
}

async function runTrial(ctx: FigureContext, service: Service, client: WsAcpClient, label: string, tokens: number, intervalMs: number): Promise<Trial> {
  const key = `stream-${label.replace(/[^\w.-]+/g, "-")}`;
  service.mock.setScript(key, [{ tokens, chunkIntervalMs: intervalMs, recordChunkTimes: true }]);
  const session = await newSession(client);
  const tag = nonce("stream", 0);
  const run = await runPrompt(client, session.sessionId, `Write a long answer ${tag} [[mock:${key}]]`, 120_000);
  const call = callFor(service.mock, tag, key);
  const written = call?.chunkWrittenAt;
  if (!call || !written || call.firstTokenAt === undefined) throw new Error(`${label}: no mock record`);
  const chunks = run.frames.filter(isAgentChunk);
  const text = agentText(run.frames);
  const expected = tokenText(tokens);
  const seqs = checkSeqs(run.frames, session.baseSeq);
  const lags: number[] = [];
  let next = 0;
  let inOrder = true;
  for (const frame of chunks) {
    for (const match of (frame.msg.params.update.content.text as string).matchAll(/t(\d+)/g)) {
      const index = Number(match[1]);
      if (index !== next) inOrder = false;
      next = index + 1;
      lags.push(frame.at - written[index]!);
    }
  }
  const lastTokenAt = written[tokens - 1]!;
  const last = chunks[chunks.length - 1]!;
  const first = chunks[0]!;
  const trial: Trial = {
    ratio: (last.at - run.sentAt) / (lastTokenAt - call.at),
    ratioFirstToLast: (last.at - first.at) / (lastTokenAt - call.firstTokenAt),
    clientMs: last.at - run.sentAt,
    mockMs: lastTokenAt - call.at,
    updates: chunks.length,
    lags,
    complete: text === expected && inOrder && lags.length === tokens && seqs.ok,
  };
  const lag = summarize(lags);
  ctx.log(
    `  ${label}: ratio ${trial.ratio.toFixed(3)} (first→last ${trial.ratioFirstToLast.toFixed(3)}), client ${fmt(trial.clientMs)} ms vs mock ${fmt(trial.mockMs)} ms, ` +
      `${trial.updates} updates (${(tokens / trial.updates).toFixed(1)} tokens each), lag p50 ${fmt(lag.p50)} / max ${fmt(lag.max)} ms, ` +
      `${trial.complete ? "complete and in order" : `INCOMPLETE (text ${text === expected ? "ok" : "differs"}, order ${inOrder}, seqs ${seqs.problem ?? "ok"})`}`,
  );
  client.forgetSession(session.sessionId);
  service.mock.reset();
  await sleep(200);
  return trial;
}

export async function measureStreaming(ctx: FigureContext): Promise<SummaryRow[]> {
  const tokens = ctx.quick ? 2_000 : 20_000;
  const trials = ctx.quick ? 2 : 5;
  const intervalMs = 0.075;
  const service = await startService();
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s; HERMES_COALESCE_MS default (5)`);
  ctx.log(`${trials} trials of ${tokens} tokens, mock paced at ${intervalMs} ms/token (≈ ${((tokens * intervalMs) / 1000).toFixed(1)} s), one new session each`);
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  ctx.defer(() => client.close());
  await initialize(client);

  // One short turn first, so the first trial does not pay for code loading and the first D1 writes.
  const warm = await newSession(client);
  await runPrompt(client, warm.sessionId, `warm up ${nonce("warm", 0)}`);

  const results: Trial[] = [];
  for (let t = 0; t < trials; t++) {
    ctx.checkTime(`trial ${t}`);
    results.push(await runTrial(ctx, service, client, `trial ${t + 1}`, tokens, intervalMs));
  }

  // Slower paces (not part of the target): where does the service keep up?
  const paces = ctx.quick ? [{ intervalMs: 0.5, tokens: 1_000 }] : [{ intervalMs: 0.25, tokens: 8_000 }, { intervalMs: 0.5, tokens: 4_000 }, { intervalMs: 1, tokens: 2_000 }];
  const paceResults: { intervalMs: number; tokens: number; trials: Trial[] }[] = [];
  ctx.log(`slower paces, 2 trials each: ${paces.map((p) => `${p.tokens} tokens at ${p.intervalMs} ms/token`).join(", ")}`);
  for (const pace of paces) {
    const paced: Trial[] = [];
    for (let t = 0; t < 2; t++) {
      ctx.checkTime(`pace ${pace.intervalMs}`);
      paced.push(await runTrial(ctx, service, client, `${pace.tokens} @ ${pace.intervalMs} ms, trial ${t + 1}`, pace.tokens, pace.intervalMs));
    }
    paceResults.push({ ...pace, trials: paced });
  }

  const ratio = summarize(results.map((r) => r.ratio));
  const ratioFl = summarize(results.map((r) => r.ratioFirstToLast));
  const allLags = results.flatMap((r) => r.lags);
  const lag = summarize(allLags);
  const perTrialMax = summarize(results.map((r) => summarize(r.lags).max));
  const within = allLags.filter((l) => l <= LAG_BOUND_MS).length / allLags.length;
  const complete = results.every((r) => r.complete) && paceResults.every((p) => p.trials.every((r) => r.complete));
  ctx.log();
  ctx.log(`${tokens} tokens at ${intervalMs} ms/token`);
  ctx.log(
    table(
      ["what", "n", "min", "median", "p95", "max"],
      [
        ["ratio: prompt → last chunk ÷ mock request → last token", String(ratio.n), fmt(ratio.min, 3), fmt(ratio.p50, 3), fmt(ratio.p95, 3), fmt(ratio.max, 3)],
        ["ratio: first → last chunk ÷ mock first → last token", String(ratioFl.n), fmt(ratioFl.min, 3), fmt(ratioFl.p50, 3), fmt(ratioFl.p95, 3), fmt(ratioFl.max, 3)],
        ["mock emission time (ms)", ...cols(summarize(results.map((r) => r.mockMs)))],
        ["client time, prompt → last chunk (ms)", ...cols(summarize(results.map((r) => r.clientMs)))],
        ["updates per answer", ...cols(summarize(results.map((r) => r.updates)), 0)],
      ],
    ),
  );
  ctx.log();
  ctx.log("lag of each token (client receive − mock write), all trials, ms");
  ctx.log(table(LATENCY_HEADER, [latencyRow("token lag", lag), latencyRow("worst token lag per trial", perTrialMax)]));
  ctx.log(`${(within * 100).toFixed(3)}% of tokens within ${LAG_BOUND_MS} ms`);
  ctx.log();
  ctx.log("slower paces");
  ctx.log(
    table(
      ["pace", "tokens", "ratio (median)", "updates (median)", "lag p50", "lag p99", "lag max"],
      paceResults.map((p) => {
        const l = summarize(p.trials.flatMap((r) => r.lags));
        return [
          `${p.intervalMs} ms/token (${(1000 / p.intervalMs).toFixed(0)} tok/s)`,
          String(p.tokens),
          summarize(p.trials.map((r) => r.ratio)).p50.toFixed(3),
          fmt(summarize(p.trials.map((r) => r.updates)).p50, 0),
          fmt(l.p50),
          fmt(l.p99),
          fmt(l.max),
        ];
      }),
    ),
  );

  return [
    { figure: "2 streaming", metric: `ratio, ${tokens} tokens (median of ${trials})`, value: `${ratio.p50.toFixed(3)} (min ${ratio.min.toFixed(3)}, max ${ratio.max.toFixed(3)})`, target: `≤ ${RATIO_TARGET}`, ...against(ratio.p50, RATIO_TARGET, "") },
    { figure: "2 streaming", metric: "text complete and in order", value: complete ? `yes, all ${results.length + paceResults.length * 2} answers` : "NO", target: "all", status: complete ? "met" : "missed" },
    { figure: "2 streaming", metric: "token lag p50 / p99 / max", value: `${fmt(lag.p50)} / ${fmt(lag.p99)} / ${fmt(lag.max)} ms`, target: `each ≤ ${LAG_BOUND_MS} ms`, ...against(lag.max, LAG_BOUND_MS, "ms") },
    ...paceResults.map((p): SummaryRow => {
      const l = summarize(p.trials.flatMap((r) => r.lags));
      return {
        figure: "2 streaming",
        metric: `at ${(1000 / p.intervalMs).toFixed(0)} tok/s (${p.tokens} tokens): ratio / lag max`,
        value: `${summarize(p.trials.map((r) => r.ratio)).p50.toFixed(3)} / ${fmt(l.max)} ms`,
        target: "—",
        status: "info",
      };
    }),
  ];
}

function cols(s: ReturnType<typeof summarize>, digits = 1): string[] {
  return [String(s.n), fmt(s.min, digits), fmt(s.p50, digits), fmt(s.p95, digits), fmt(s.max, digits)];
}

if (isMain(import.meta.url)) {
  await runFigure("figure 2", "streaming a 20,000-token answer", 10 * 60_000, measureStreaming);
}
