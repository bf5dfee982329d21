/**
 * Figure 3 — 50, 100 and 200 sessions prompting at once, over direct
 * WebSockets with 10 sessions per connection (5, 10 and 20 connections, as
 * editors that each have a few chats open). Every answer is a 100-token stream
 * paced at 0.5 ms per token (≈ 50 ms of model time). Checked: every prompt is
 * answered `end_turn`, every text is complete, no seq is missing; measured:
 * the first-token overhead of each prompt (as in figure 1), the turn time and
 * the Worker's CPU time. The largest level runs once more with one session per
 * connection (not part of the target), for comparison.
 *
 *   npx tsx bench/concurrency.ts [--quick]
 */
import { WsAcpClient } from "./lib/acp-client.js";
import { promptBurst, type BurstResult } from "./lib/burst.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN } from "./lib/service.js";
import { fmt, table } from "./lib/stats.js";
import { initialize, sleep } from "./lib/turns.js";

export const SESSIONS_PER_CONNECTION = 10;
export const BURST_TOKENS = 100;
export const BURST_INTERVAL_MS = 0.5;
const P95_TARGET_MS = 50;

export async function measureConcurrency(ctx: FigureContext): Promise<SummaryRow[]> {
  const levels = ctx.quick ? [10, 20] : [50, 100, 200];
  // Not part of the target: the largest level again with one session per connection, which
  // shows what the connection object's in-order handling of frames costs when one connection
  // carries many sessions.
  const runs = [...levels.map((sessions) => ({ sessions, perConnection: SESSIONS_PER_CONNECTION })), { sessions: levels[levels.length - 1]!, perConnection: 1 }];
  const service = await startService();
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s; HERMES_COALESCE_MS default (5)`);
  ctx.log(
    `levels ${levels.join(", ")} sessions; ${SESSIONS_PER_CONNECTION} sessions per WebSocket connection; ` +
      `answers of ${BURST_TOKENS} tokens at ${BURST_INTERVAL_MS} ms/token`,
  );

  const results: { level: number; connections: number; r: BurstResult }[] = [];
  for (const { sessions: level, perConnection } of runs) {
    ctx.checkTime(`level ${level}`);
    const connections = Math.ceil(level / perConnection);
    const clients = await Promise.all(Array.from({ length: connections }, () => WsAcpClient.open(service.wsUrl, TOKEN)));
    try {
      await Promise.all(clients.map(initialize));
      const r = await promptBurst({
        label: `c${level}x${perConnection}`,
        mock: service.mock,
        clients,
        sessions: level,
        tokens: BURST_TOKENS,
        chunkIntervalMs: BURST_INTERVAL_MS,
        timeoutMs: 120_000,
        checkTime: ctx.checkTime,
        cpu: service.workerCpuMs,
      });
      results.push({ level, connections, r });
      ctx.log(
        `  ${level} sessions on ${connections} connections: ${r.answered}/${level} answered, ${r.complete} complete, overhead p50 ${fmt(r.overhead.p50)} p95 ${fmt(r.overhead.p95)} ms, ` +
          `all answered in ${fmt(r.wallMs)} ms (setup ${fmt(r.setupMs / 1000)} s)` +
          (r.cpuMs !== undefined ? `; Worker CPU ${fmt(r.cpuMs)} ms = ${fmt(r.cpuMs / level)} ms per turn, ${((100 * r.cpuMs) / r.wallMs).toFixed(0)}% of one core` : ""),
      );
      for (const p of r.problems.slice(0, 5)) ctx.log(`    problem: ${p}`);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    service.mock.reset();
    await sleep(1_000); // let the previous level's background work (index updates, detaches) settle
  }

  ctx.log();
  ctx.log("first-token overhead and turn times in ms");
  ctx.log(
    table(
      ["sessions", "connections", "answered", "complete", "updates", "overhead p50", "p95", "max", "turn p50", "turn p95", "all answered in", "prompts written in", "Worker CPU per turn", "Worker CPU busy"],
      results.map(({ level, connections, r }) => [
        String(level),
        String(connections),
        `${r.answered}/${level}`,
        `${r.complete}/${level}`,
        String(r.updates),
        fmt(r.overhead.p50),
        fmt(r.overhead.p95),
        fmt(r.overhead.max),
        fmt(r.turn.p50),
        fmt(r.turn.p95),
        fmt(r.wallMs),
        fmt(r.sendSpreadMs),
        r.cpuMs !== undefined ? fmt(r.cpuMs / level) : "n/a",
        r.cpuMs !== undefined ? `${((100 * r.cpuMs) / r.wallMs).toFixed(0)}%` : "n/a",
      ]),
    ),
  );

  return results.flatMap(({ level, connections, r }, index) => {
    const allGood = r.answered === level && r.complete === level;
    const gated = index === levels.length - 1;
    const where = connections === level ? `${level} sessions, 1 per connection` : `${level} sessions`;
    const rows: SummaryRow[] = [
      {
        figure: "3 concurrency",
        metric: `${where}: answered / complete`,
        value: `${r.answered}/${level} / ${r.complete}/${level} (${r.updates} updates)`,
        target: "all, nothing lost",
        status: allGood ? "met" : "missed",
        ...(allGood ? {} : { note: r.problems[0] ?? "" }),
      },
      {
        figure: "3 concurrency",
        metric: `${where}: first-token overhead p95`,
        value: `${fmt(r.overhead.p95)} ms (median ${fmt(r.overhead.p50)}, max ${fmt(r.overhead.max)})`,
        target: gated ? `≤ ${P95_TARGET_MS} ms` : "—",
        ...(gated ? against(r.overhead.p95, P95_TARGET_MS, "ms") : { status: "info" as const }),
      },
    ];
    return rows;
  });
}

if (isMain(import.meta.url)) {
  await runFigure("figure 3", "50/100/200 sessions prompting at once", 15 * 60_000, measureConcurrency);
}
