/**
 * A turn that outlives a restart — how long from the restart to the resumed
 * turn's first token at a client that reconnects?
 *
 * Each run: a direct client (raw WebSocket, `_hermes/turn_ended` asked for)
 * starts a prompt whose answer streams slowly; after a few tokens `wrangler
 * dev` is stopped (SIGTERM to its process group, as a deploy ends the old
 * isolates) and started again on the same port and persist dir. As soon as
 * `/health` answers, a new client connects, sends `session/resume` with the
 * last seq it had, and waits for the resumed model call's first token (the
 * first agent chunk after the "restart" line) and then `_hermes/turn_ended`.
 *
 * Two times, medians of `RUNS` runs:
 * - up → first token: from `/health` answering again (wrangler's restart
 *   polls it every 150 ms, so this start is up to 150 ms late) to the token
 *   arriving at the reconnected client; it holds the reconnect, initialize,
 *   resume, the object's start and the model call made again.
 * - kill → first token: from the SIGTERM, so it also holds wrangler dev's own
 *   stop and start (not the service's; a deploy's differs).
 *
 *   npx tsx bench/restart.ts [--quick]
 */
import { WsAcpClient, type Incoming } from "./lib/acp-client.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN, type Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { CWD, initialize, isAgentChunk, isTurnEnded, newSession, nonce, seqOf, waitForFrame } from "./lib/turns.js";

const RUNS = 3;
const RESUMED_TEXT = "The resumed answer, made again from the stored history.";

const chunkText = (f: Incoming): string => f.msg.params?.update?.content?.text ?? "";

interface RunTimes {
  /** `/health` answering again → first token of the resumed call at the new client. */
  upToToken: number;
  /** SIGTERM to wrangler dev → the same token. */
  killToToken: number;
  /** `/health` answering → the model server writing the resumed call's first token. */
  upToModelToken: number;
  /** `/health` answering → `_hermes/turn_ended` at the new client. */
  upToEnded: number;
  /** wrangler dev's stop and start. */
  restartMs: number;
}

async function oneRun(ctx: FigureContext, service: Service, run: number): Promise<RunTimes> {
  const key = nonce("restart", run);
  service.mock.setScript(key, [{ tokens: 400, chunkDelayMs: 40 }, { text: RESUMED_TEXT, chunkSize: 8 }]);
  const first = await WsAcpClient.open(service.wsUrl, TOKEN);
  await initialize(first);
  const { sessionId } = await newSession(first);
  const before = first.session(sessionId);
  // The socket is cut by the restart: this prompt is never answered on it.
  first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `Stream [[mock:${key}]]` }] }, 120_000).catch(() => undefined);
  await waitForFrame(before, (f) => isAgentChunk(f) && chunkText(f).includes("t3"), 0, 60_000);
  const seen = Math.max(...before.frames.flatMap((f) => seqOf(f) ?? []));

  const killAt = performance.now();
  await service.server.restart();
  const upAt = performance.now();
  await first.close();

  const second = await WsAcpClient.open(service.wsUrl, TOKEN);
  try {
    await initialize(second);
    const track = second.session(sessionId);
    const resumed = await second.call("session/resume", { sessionId, cwd: CWD, mcpServers: [], _meta: { hermes: { afterSeq: seen } } }, 60_000);
    const turn = resumed.result?._meta?.hermes?.turn;
    if (turn?.state !== "running" || turn.resumes !== 1) throw new Error(`run ${run}: session/resume says the turn is ${JSON.stringify(turn)}, not running with resumes 1`);
    const token = await waitForFrame(track, (f) => isAgentChunk(f) && RESUMED_TEXT.startsWith(chunkText(f)) && chunkText(f).length > 0, 0, 60_000);
    const ended = await waitForFrame(track, isTurnEnded, 0, 60_000);
    if (ended.msg.params.stopReason !== "end_turn") throw new Error(`run ${run}: the resumed turn ended ${JSON.stringify(ended.msg.params)}`);
    const restartLines = track.frames.filter(isAgentChunk).map(chunkText).join("").split("\n").filter((line) => /restart/i.test(line));
    if (restartLines.length !== 1) throw new Error(`run ${run}: ${restartLines.length} lines about the restart, not 1`);
    const calls = service.mock.calls(key);
    const modelToken = calls[1]?.firstTokenAt;
    if (calls.length !== 2 || modelToken === undefined) throw new Error(`run ${run}: ${calls.length} model calls, not 2`);
    const times = { upToToken: token.at - upAt, killToToken: token.at - killAt, upToModelToken: modelToken - upAt, upToEnded: ended.at - upAt, restartMs: upAt - killAt };
    ctx.log(`run ${run + 1}: restart ${fmt(times.restartMs, 0)} ms; up → first token ${fmt(times.upToToken, 0)} ms; kill → first token ${fmt(times.killToToken, 0)} ms`);
    return times;
  } finally {
    await second.close();
  }
}

export async function measureRestart(ctx: FigureContext): Promise<SummaryRow[]> {
  const runs = ctx.quick ? 1 : RUNS;
  const service = await startService();
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s; ${runs} runs, each a restart while the model streams`);
  const all: RunTimes[] = [];
  for (let run = 0; run < runs; run++) {
    ctx.checkTime(`run ${run + 1}`);
    all.push(await oneRun(ctx, service, run));
  }
  const pick = (k: keyof RunTimes) => summarize(all.map((t) => t[k]));
  ctx.log();
  ctx.log(table(LATENCY_HEADER, [
    latencyRow("/health up → first token at the reconnected client (ms)", pick("upToToken")),
    latencyRow("/health up → the model writes the resumed call's first token (ms)", pick("upToModelToken")),
    latencyRow("/health up → _hermes/turn_ended (ms)", pick("upToEnded")),
    latencyRow("kill → first token at the reconnected client (ms)", pick("killToToken")),
    latencyRow("wrangler dev stop + start (ms)", pick("restartMs")),
  ]));
  const row = (metric: string, k: keyof RunTimes): SummaryRow => ({ figure: "restart", metric, value: `${fmt(pick(k).p50, 0)} ms`, target: "—", status: "info", note: `median of ${runs}` });
  return [
    row("restart (/health up) → resumed turn's first token at a reconnected client", "upToToken"),
    row("kill → resumed turn's first token (includes wrangler dev's stop and start)", "killToToken"),
  ];
}

if (isMain(import.meta.url)) {
  void runFigure("restart", "a restart to the resumed turn's first token", 10 * 60_000, measureRestart);
}
