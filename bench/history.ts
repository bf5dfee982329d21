/**
 * Figure 4 — `session/load` of a session with 1,000 and with 10,000 updates.
 *
 * The histories are built with one long streamed answer each, on a service
 * started with HERMES_COALESCE_MS=0 so that every token is its own update:
 * a session logs `available_commands_update`, the user message, the title
 * (`session_info_update`), N − 4 agent_message_chunks and `usage_update`, that
 * is N session/update frames, plus `_hermes/turn_ended`. Each load runs on a
 * fresh connection and is timed from the request to its response (which the
 * service sends after the last replayed frame); the replay is checked: count,
 * order and text.
 *
 *   npx tsx bench/history.ts [--quick]
 */
import { type AcpClient, ProxyAcpClient, WsAcpClient } from "./lib/acp-client.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN, type Service } from "./lib/service.js";
import { fmt, summarize, table, type Summary } from "./lib/stats.js";
import { agentText, CWD, initialize, isTurnEnded, newSession, runPrompt, seqOf, sleep, tokenText } from "./lib/turns.js";

const TARGET_MS = 1_000;
/** Frames a one-turn session logs besides its agent_message_chunks (session/update only). */
const OTHER_UPDATES = 4;

interface LoadSample {
  ms: number;
  firstFrameMs: number;
  frames: number;
  bytes: number;
  ok: boolean;
  problem?: string;
}

async function buildSession(service: Service, client: AcpClient, updates: number): Promise<{ sessionId: string; buildMs: number }> {
  const tokens = updates - OTHER_UPDATES;
  const key = `history-${updates}`;
  service.mock.setScript(key, [{ tokens }]);
  const { sessionId } = await newSession(client);
  const started = performance.now();
  const run = await runPrompt(client, sessionId, `Tell me a long story [[mock:${key}]]`, 300_000);
  if (agentText(run.frames) !== tokenText(tokens)) throw new Error(`history ${updates}: the live answer was incomplete`);
  client.forgetSession(sessionId);
  return { sessionId, buildMs: performance.now() - started };
}

async function loadOnce(open: () => Promise<AcpClient>, sessionId: string, updates: number): Promise<LoadSample> {
  const client = await open();
  try {
    await initialize(client);
    const reply = await client.request("session/load", { sessionId, cwd: CWD, mcpServers: [] }, 120_000);
    const frames = client.session(sessionId).frames;
    const updatesSeen = frames.filter((f) => f.msg.method === "session/update").length;
    const seqs = frames.map(seqOf);
    const ordered = seqs.every((s, i) => s !== undefined && (i === 0 || s > seqs[i - 1]!));
    const text = agentText(frames);
    const problems = [
      reply.error ? `error ${reply.error.code} ${reply.error.message}` : "",
      updatesSeen !== updates ? `${updatesSeen} session/update frames, expected ${updates}` : "",
      !ordered ? "seqs out of order" : "",
      text !== tokenText(updates - OTHER_UPDATES) ? "text differs" : "",
      !frames.some(isTurnEnded) ? "no _hermes/turn_ended in the replay" : "",
    ].filter(Boolean);
    return {
      ms: reply.at - reply.sentAt,
      firstFrameMs: (frames[0]?.at ?? reply.at) - reply.sentAt,
      frames: frames.length,
      bytes: frames.reduce((n, f) => n + f.bytes, 0),
      ok: problems.length === 0,
      ...(problems.length ? { problem: problems.join("; ") } : {}),
    };
  } finally {
    await client.close();
  }
}

export async function measureHistory(ctx: FigureContext): Promise<SummaryRow[]> {
  const sizes = ctx.quick ? [200, 1_000] : [1_000, 10_000];
  const trials = ctx.quick ? 2 : 5;
  const proxyTrials = ctx.quick ? 1 : 3;
  const service = await startService({ coalesceMs: 0 });
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s with HERMES_COALESCE_MS=0 (one update per token)`);

  const builder = await WsAcpClient.open(service.wsUrl, TOKEN);
  ctx.defer(() => builder.close());
  await initialize(builder);
  const built: { updates: number; sessionId: string; buildMs: number }[] = [];
  for (const updates of sizes) {
    ctx.checkTime(`building ${updates}`);
    const b = await buildSession(service, builder, updates);
    built.push({ updates, ...b });
    ctx.log(`  built a session with ${updates} updates in ${fmt(b.buildMs / 1000)} s (streamed live, uncoalesced)`);
    service.mock.reset();
  }
  await builder.close();
  await sleep(500);

  const results: { updates: number; path: string; samples: LoadSample[]; s: Summary }[] = [];
  for (const { updates, sessionId } of built) {
    for (const [path, n, open] of [
      ["direct", trials, () => WsAcpClient.open(service.wsUrl, TOKEN)],
      ["proxy", proxyTrials, async () => ProxyAcpClient.spawn(service.wsUrl, TOKEN)],
    ] as const) {
      const samples: LoadSample[] = [];
      for (let t = 0; t < n; t++) {
        ctx.checkTime(`load ${updates} ${path} ${t}`);
        const sample = await loadOnce(open, sessionId, updates);
        samples.push(sample);
        ctx.log(
          `  ${updates} updates, ${path}, load ${t + 1}: ${fmt(sample.ms)} ms (first frame after ${fmt(sample.firstFrameMs)} ms), ` +
            `${sample.frames} frames, ${(sample.bytes / 1024).toFixed(0)} KiB${sample.ok ? "" : `, PROBLEM: ${sample.problem}`}`,
        );
        await sleep(200);
      }
      results.push({ updates, path, samples, s: summarize(samples.map((x) => x.ms)) });
    }
  }

  ctx.log();
  ctx.log("session/load: request → response, ms");
  ctx.log(
    table(
      ["updates", "path", "n", "min", "median", "max", "first frame (median)", "frames", "KiB", "frames/s (median)", "checked"],
      results.map(({ updates, path, samples, s }) => [
        String(updates),
        path,
        String(s.n),
        fmt(s.min),
        fmt(s.p50),
        fmt(s.max),
        fmt(summarize(samples.map((x) => x.firstFrameMs)).p50),
        String(samples[0]?.frames ?? 0),
        ((samples[0]?.bytes ?? 0) / 1024).toFixed(0),
        ((samples[0]?.frames ?? 0) / (s.p50 / 1000)).toFixed(0),
        samples.every((x) => x.ok) ? "complete, in order" : (samples.find((x) => !x.ok)?.problem ?? ""),
      ]),
    ),
  );

  const largest = sizes[sizes.length - 1]!;
  return results.map(({ updates, path, samples, s }) => {
    const ok = samples.every((x) => x.ok);
    const gated = updates === largest && path === "direct";
    return {
      figure: "4 history",
      metric: `session/load, ${updates} updates, ${path}`,
      value: `median ${fmt(s.p50)} ms (min ${fmt(s.min)}, max ${fmt(s.max)}, n ${s.n})${ok ? "" : " INCOMPLETE"}`,
      target: gated ? `≤ ${TARGET_MS} ms` : "—",
      ...(ok ? (gated ? against(s.p50, TARGET_MS, "ms") : { status: "info" as const }) : { status: "missed" as const, note: samples.find((x) => !x.ok)?.problem ?? "" }),
    };
  });
}

if (isMain(import.meta.url)) {
  await runFigure("figure 4", "session/load replay of 1,000 and 10,000 updates", 15 * 60_000, measureHistory);
}
