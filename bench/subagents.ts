/**
 * Sub-agent fan-out — do delegated tasks run in parallel, up to the cap?
 *
 *   ratio = median span of a delegation of N children / median span of one child
 *
 * Every child's model answer takes the same time (the mock waits
 * `firstTokenDelayMs` = 2000 ms before its first token). The span is measured
 * at the client: from the first `tool_call` of the turn's delegate_task calls
 * to the last of their `completed` updates. Children are separate session
 * objects, so N should take about as long as one (target: under 1.3×).
 *
 * Both services run with the checkout's shipped tenant limits (its
 * wrangler.toml's HERMES_TENANT_LIMITS, not lifted):
 * - HERMES_MAX_CONCURRENT_CHILDREN=10: 1, 3 and 10 children in one call;
 * - HERMES_MAX_CONCURRENT_CHILDREN=16: 1 child, 16 in one call, 16 in two calls of one message (8 + 8).
 * Rounds alternate the cases, each in a new session; one warm-up round is not counted.
 *
 * `--baseline DIR` (or BENCH_BASELINE_DIR) measures another checkout first in
 * the same run, e.g. an export of main, so before and after share the machine's load.
 *
 *   npx tsx bench/subagents.ts [--quick] [--baseline DIR]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { WsAcpClient } from "./lib/acp-client.js";
import { BASELINE_LABEL, checkouts, startServiceIn } from "./lib/baseline.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import type { Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, newSession, nonce, runPrompt, type PromptRun } from "./lib/turns.js";

const MODEL_DELAY_MS = 2_000;
const TARGET_RATIO = 1.3;

/** One case: how many children, split over how many delegate_task calls of one message. */
interface Case {
  label: string;
  children: number;
  calls: number;
}

const AT_10: Case[] = [
  { label: "1 child", children: 1, calls: 1 },
  { label: "3 children", children: 3, calls: 1 },
  { label: "10 children", children: 10, calls: 1 },
];
const AT_16: Case[] = [
  { label: "1 child", children: 1, calls: 1 },
  { label: "16 children, one call", children: 16, calls: 1 },
  { label: "16 children, two calls", children: 16, calls: 2 },
];

type Round = { span: number } | { refused: string };

/** One turn delegating `c.children` tasks over `c.calls` delegate_task calls; the span of those calls. */
async function delegateRound(service: Service, client: WsAcpClient, c: Case, tag: string): Promise<Round> {
  const { sessionId } = await newSession(client);
  const childKeys = Array.from({ length: c.children }, (_, i) => nonce(`${tag}-child${i}`, 0));
  for (const key of childKeys) service.mock.setScript(key, [{ text: `Child ${key} finished.`, firstTokenDelayMs: MODEL_DELAY_MS }]);
  const per = Math.ceil(c.children / c.calls);
  const ids = Array.from({ length: c.calls }, (_, i) => `call_delegate_${i}`);
  const toolCalls = ids.map((id, i) => ({
    id,
    name: "delegate_task",
    arguments: { tasks: childKeys.slice(i * per, (i + 1) * per).map((key, j) => ({ goal: `Task ${i * per + j + 1} [[mock:${key}]]` })) },
  }));
  const parentKey = nonce(`${tag}-parent`, 0);
  service.mock.setScript(parentKey, [{ toolCalls }, { text: "Delegated work is done." }]);
  const run = await runPrompt(client, sessionId, `Delegate [[mock:${parentKey}]]`, 120_000);
  client.forgetSession(sessionId);
  if (run.reply.result?.stopReason !== "end_turn") throw new Error(`${tag}: ${JSON.stringify(run.reply)}`);
  return delegateSpan(run, ids, c.children, tag);
}

function delegateSpan(run: PromptRun, ids: string[], children: number, tag: string): Round {
  const ofCalls = run.frames.filter((f) => ids.includes(f.msg.params?.update?.toolCallId));
  const starts = ofCalls.filter((f) => f.msg.params.update.sessionUpdate === "tool_call");
  const ends = ofCalls.filter((f) => f.msg.params.update.status === "completed" || f.msg.params.update.status === "failed");
  if (starts.length !== ids.length || ends.length !== ids.length) throw new Error(`${tag}: the delegate_task calls did not all start and end`);
  const failed = ends.find((f) => f.msg.params.update.status === "failed");
  // An older service refuses more tasks per call than it allows (its schema's limit).
  if (failed) return { refused: JSON.stringify(failed.msg.params.update.content?.[0]?.content?.text ?? "failed").slice(0, 120) };
  const results = ends.flatMap((f) => (f.msg.params.update.rawOutput?.results ?? []) as { status: string }[]);
  if (results.length !== children || results.some((r) => r.status !== "completed")) {
    throw new Error(`${tag}: not every child completed: ${JSON.stringify(results)}`);
  }
  return { span: Math.max(...ends.map((f) => f.at)) - Math.min(...starts.map((f) => f.at)) };
}

/** The checkout's shipped HERMES_TENANT_LIMITS, as its wrangler.toml has it. */
function shippedLimits(dir: string): string {
  const toml = readFileSync(join(dir, "wrangler.toml"), "utf8");
  const value = /^HERMES_TENANT_LIMITS = '(.*)'$/m.exec(toml)?.[1];
  if (value === undefined) throw new Error(`${dir}/wrangler.toml has no HERMES_TENANT_LIMITS line`);
  return value;
}

interface CaseResult {
  c: Case;
  spans: number[];
  refused?: string;
}

async function measureAt(ctx: FigureContext, dir: string, cap: number, cases: Case[], rounds: number): Promise<CaseResult[]> {
  const limits = shippedLimits(dir);
  const { service, client } = await startServiceIn(dir, { extraVars: { HERMES_MAX_CONCURRENT_CHILDREN: String(cap), HERMES_TENANT_LIMITS: limits } });
  try {
    ctx.log(`${dir}: wrangler dev up in ${service.startSeconds.toFixed(1)} s; cap ${cap}; HERMES_TENANT_LIMITS ${limits}`);
    await initialize(client);
    const out: CaseResult[] = cases.map((c) => ({ c, spans: [] }));
    for (let i = 0; i <= rounds; i++) {
      ctx.checkTime(`cap ${cap} round ${i}`);
      for (const r of out) {
        const round = await delegateRound(service, client, r.c, `cap${cap}-${r.c.children}x${r.c.calls}-${i}`);
        if ("refused" in round) r.refused = round.refused;
        else if (i > 0) r.spans.push(round.span);
      }
    }
    ctx.log(table(LATENCY_HEADER, out.filter((r) => r.spans.length > 0).map((r) => latencyRow(`cap ${cap}: ${r.c.label} (ms)`, summarize(r.spans)))));
    for (const r of out.filter((r) => r.refused)) ctx.log(`cap ${cap}: ${r.c.label}: refused: ${r.refused}`);
    return out;
  } finally {
    await client.close();
    await service.stop();
  }
}

function ratioRows(who: string, cap: number, results: CaseResult[]): SummaryRow[] {
  const one = summarize(results[0]!.spans).p50;
  const rows: SummaryRow[] = [
    { figure: "subagents", metric: `${who}cap ${cap}: 1 child, span over the ${MODEL_DELAY_MS} ms model time (median)`, value: `${fmt(one - MODEL_DELAY_MS, 0)} ms`, target: "—", status: "info" },
  ];
  for (const r of results.slice(1)) {
    const metric = `${who}cap ${cap}: ${r.c.label} / 1 child (median span)`;
    if (r.refused || r.spans.length === 0) {
      rows.push({ figure: "subagents", metric, value: "refused", target: `< ${TARGET_RATIO}×`, status: "missed", note: r.refused ?? "no rounds" });
      continue;
    }
    const ratio = summarize(r.spans).p50 / one;
    const status = ratio < TARGET_RATIO ? ("met" as const) : ("missed" as const);
    rows.push({ figure: "subagents", metric, value: `${fmt(ratio)}×`, target: `< ${TARGET_RATIO}×`, status, ...(status === "missed" ? { note: `${fmt(ratio / TARGET_RATIO)}× the target` } : {}) });
  }
  return rows;
}

export async function measureSubagents(ctx: FigureContext): Promise<SummaryRow[]> {
  const rounds = ctx.quick ? 2 : 5;
  ctx.log(`every child's model answer waits ${MODEL_DELAY_MS} ms; ${rounds} rounds of each case after 1 warm-up round; shipped tenant limits`);
  const rows: SummaryRow[] = [];
  for (const { label: who, dir } of checkouts()) {
    rows.push(...ratioRows(who, 10, await measureAt(ctx, dir, 10, AT_10, rounds)));
    rows.push(...ratioRows(who, 16, await measureAt(ctx, dir, 16, AT_16, rounds)));
  }
  // Only this tree's figures are targets; the baseline's are for comparison.
  return rows.map((r) => {
    if (!r.metric.startsWith(BASELINE_LABEL) || r.status === "info") return r;
    const { note, ...row } = r;
    return { ...row, status: "info", target: "—", ...(r.value === "refused" && note ? { note } : {}) };
  });
}

if (isMain(import.meta.url)) {
  void runFigure("subagents", "sub-agents at the cap versus one (parallel fan-out)", 16 * 60_000, measureSubagents);
}
