/**
 * Figure 5 — the proxy: resident memory under a 200-session run, and the
 * latency it adds to each frame.
 *
 * Memory: one `hermes-edge-proxy` process (one WebSocket) carries 200 sessions
 * that are opened and then all prompted at once (100-token answers, as in
 * figure 3); its VmRSS is sampled from /proc every 20 ms throughout.
 *
 * Latency: request/response round trips, direct and through the proxy,
 * interleaved one by one: (a) against a minimal `ws` echo server, which
 * isolates the proxy's own cost; (b) against the service with a method it
 * does not know (`_bench/ping`: the connection object answers -32601 at once,
 * no session involved). A round trip crosses the proxy twice (one frame each
 * way), so the added latency per frame is half the difference of the medians.
 *
 *   npx tsx bench/proxy.ts [--quick]
 */
import { type AcpClient, ProxyAcpClient, rssOf, WsAcpClient } from "./lib/acp-client.js";
import { promptBurst } from "./lib/burst.js";
import { spawnEchoServer } from "./lib/echo-server.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, sleep } from "./lib/turns.js";
import { BURST_INTERVAL_MS, BURST_TOKENS } from "./concurrency.js";

const RSS_TARGET_MB = 60;
const PER_FRAME_TARGET_MS = 0.5;
const MB = 1024 * 1024;

async function pingPair(
  ctx: FigureContext,
  label: string,
  direct: AcpClient,
  proxied: AcpClient,
  method: string,
  params: unknown,
  n: number,
): Promise<{ direct: number[]; proxy: number[] }> {
  const out = { direct: [] as number[], proxy: [] as number[] };
  const warmup = Math.min(20, n);
  for (let i = 0; i < warmup + n; i++) {
    if (i % 100 === 0) ctx.checkTime(`${label} ping ${i}`);
    for (const [client, into] of [
      [direct, out.direct],
      [proxied, out.proxy],
    ] as const) {
      const reply = await client.request(method, params, 10_000);
      if (i >= warmup) into.push(reply.at - reply.sentAt);
    }
  }
  return out;
}

export async function measureProxy(ctx: FigureContext): Promise<SummaryRow[]> {
  const sessions = ctx.quick ? 20 : 200;
  const pings = ctx.quick ? 50 : 500;
  const service = await startService();
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s; HERMES_COALESCE_MS default (5)`);

  // --- memory under load -------------------------------------------------
  const proxy = ProxyAcpClient.spawn(service.wsUrl, TOKEN);
  ctx.defer(() => proxy.close());
  await initialize(proxy);
  await sleep(500);
  const idle = (await rssOf(proxy.pid)) ?? Number.NaN;
  const samples: { at: number; rss: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    for (let i = 0; sampling && i < 60_000; i++) {
      const rss = await rssOf(proxy.pid);
      if (rss !== undefined) samples.push({ at: performance.now(), rss });
      await sleep(20);
    }
  })();
  const started = performance.now();
  let burst;
  try {
    burst = await promptBurst({
      label: "proxy",
      mock: service.mock,
      clients: [proxy],
      sessions,
      tokens: BURST_TOKENS,
      chunkIntervalMs: BURST_INTERVAL_MS,
      timeoutMs: 180_000,
      checkTime: ctx.checkTime,
    });
  } finally {
    sampling = false;
    await sampler;
  }
  const after = (await rssOf(proxy.pid)) ?? Number.NaN;
  const rss = summarize(samples.map((s) => s.rss / MB));
  ctx.log(
    `  ${sessions} sessions through one proxy: ${burst.answered}/${sessions} answered, ${burst.complete} complete, ${burst.updates} updates; ` +
      `first-token overhead p50 ${fmt(burst.overhead.p50)} p95 ${fmt(burst.overhead.p95)} ms; run took ${fmt((performance.now() - started) / 1000)} s (setup ${fmt(burst.setupMs / 1000)} s)`,
  );
  for (const p of burst.problems.slice(0, 5)) ctx.log(`    problem: ${p}`);
  ctx.log(
    `  proxy RSS: idle ${fmt(idle / MB, 1)} MB; during the run median ${fmt(rss.p50, 1)}, max ${fmt(rss.max, 1)} MB (${rss.n} samples every 20 ms); after ${fmt(after / MB, 1)} MB`,
  );
  service.mock.reset();

  // --- latency per frame ---------------------------------------------------
  const echo = await spawnEchoServer();
  ctx.defer(() => echo.close());
  const echoDirect = await WsAcpClient.open(echo.url, undefined);
  ctx.defer(() => echoDirect.close());
  const echoProxy = ProxyAcpClient.spawn(echo.url, "unused");
  ctx.defer(() => echoProxy.close());
  const serviceDirect = await WsAcpClient.open(service.wsUrl, TOKEN);
  ctx.defer(() => serviceDirect.close());
  const serviceProxy = ProxyAcpClient.spawn(service.wsUrl, TOKEN);
  ctx.defer(() => serviceProxy.close());
  for (const c of [echoDirect, echoProxy, serviceDirect, serviceProxy]) await initialize(c);

  const pingParams = { sessionId: "00000000-0000-4000-8000-000000000000", prompt: [{ type: "text", text: "a frame about the size of a short prompt" }] };
  const echoRtt = await pingPair(ctx, "echo", echoDirect, echoProxy, "_bench/ping", pingParams, pings);
  const serviceRtt = await pingPair(ctx, "service", serviceDirect, serviceProxy, "_bench/ping", pingParams, pings);
  const e = { d: summarize(echoRtt.direct), p: summarize(echoRtt.proxy) };
  const s = { d: summarize(serviceRtt.direct), p: summarize(serviceRtt.proxy) };
  const perFrameEcho = (e.p.p50 - e.d.p50) / 2;
  const perFrameService = (s.p.p50 - s.d.p50) / 2;

  ctx.log();
  ctx.log("round trips, ms");
  ctx.log(
    table(LATENCY_HEADER, [
      latencyRow("echo server, direct", e.d),
      latencyRow("echo server, through the proxy", e.p),
      latencyRow("service (_bench/ping → -32601), direct", s.d),
      latencyRow("service (_bench/ping → -32601), through the proxy", s.p),
    ]),
  );
  ctx.log(`added per frame (half the round-trip difference of medians): echo ${fmt(perFrameEcho, 3)} ms, service ${fmt(perFrameService, 3)} ms`);

  const allGood = burst.answered === sessions && burst.complete === sessions;
  return [
    {
      figure: "5 proxy",
      metric: `RSS during a ${sessions}-session run (max)`,
      value: `${fmt(rss.max, 1)} MB (idle ${fmt(idle / MB, 1)}, median ${fmt(rss.p50, 1)}, after ${fmt(after / MB, 1)})`,
      target: `≤ ${RSS_TARGET_MB} MB`,
      ...against(rss.max, RSS_TARGET_MB, "MB"),
    },
    {
      figure: "5 proxy",
      metric: `${sessions} sessions through one proxy: answered / complete`,
      value: `${burst.answered}/${sessions} / ${burst.complete}/${sessions}; first-token p95 ${fmt(burst.overhead.p95)} ms`,
      target: "all",
      status: allGood ? "met" : "missed",
      ...(allGood ? {} : { note: burst.problems[0] ?? "" }),
    },
    {
      figure: "5 proxy",
      metric: "added latency per frame, median (vs echo server)",
      value: `${fmt(perFrameEcho, 3)} ms (round trip ${fmt(e.d.p50, 3)} → ${fmt(e.p.p50, 3)} ms)`,
      target: `≤ ${PER_FRAME_TARGET_MS} ms`,
      ...against(perFrameEcho, PER_FRAME_TARGET_MS, "ms"),
    },
    {
      figure: "5 proxy",
      metric: "added latency per frame, median (vs the service)",
      value: `${fmt(perFrameService, 3)} ms (round trip ${fmt(s.d.p50, 3)} → ${fmt(s.p.p50, 3)} ms)`,
      target: `≤ ${PER_FRAME_TARGET_MS} ms`,
      ...against(perFrameService, PER_FRAME_TARGET_MS, "ms"),
    },
  ];
}

if (isMain(import.meta.url)) {
  await runFigure("figure 5", "hermes-edge-proxy: memory under 200 sessions, latency per frame", 15 * 60_000, measureProxy);
}
