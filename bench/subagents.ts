/**
 * Sub-agent fan-out — do delegated tasks run in parallel?
 *
 *   ratio = median span of a delegate_task call with 3 children
 *         / median span of a delegate_task call with 1 child
 *
 * Every child's model answer takes the same time (the mock waits
 * `firstTokenDelayMs` = 1000 ms before its first token). The span is measured
 * at the client: from the `tool_call` of `delegate_task` to its `completed`
 * update. Children are separate session objects, so three should take about
 * as long as one (target: ratio under 1.3), not three times as long.
 * Rounds alternate one / three children, each in a new session; one warm-up
 * round of each is not counted.
 *
 *   npx tsx bench/subagents.ts [--quick]
 */
import { WsAcpClient } from "./lib/acp-client.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN, type Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { initialize, newSession, nonce, runPrompt, type PromptRun } from "./lib/turns.js";

const MODEL_DELAY_MS = 1_000;
const TARGET_RATIO = 1.3;
const DELEGATE_CALL = "call_delegate";

/** One delegation of `children` tasks; returns the delegate_task span and the whole prompt's time. */
async function delegateRound(service: Service, client: WsAcpClient, children: number, label: string): Promise<{ span: number; prompt: number }> {
  const { sessionId } = await newSession(client);
  const childKeys = Array.from({ length: children }, (_, i) => nonce(`${label}-child${i}`, 0));
  for (const key of childKeys) service.mock.setScript(key, [{ text: `Child ${key} finished.`, firstTokenDelayMs: MODEL_DELAY_MS }]);
  const parentKey = nonce(`${label}-parent`, 0);
  const tasks = childKeys.map((key, i) => ({ goal: `Task ${i + 1} [[mock:${key}]]` }));
  service.mock.setScript(parentKey, [
    { toolCalls: [{ id: DELEGATE_CALL, name: "delegate_task", arguments: { tasks } }] },
    { text: "Delegated work is done." },
  ]);
  const run = await runPrompt(client, sessionId, `Delegate [[mock:${parentKey}]]`, 60_000);
  if (run.reply.result?.stopReason !== "end_turn") throw new Error(`${label}: ${JSON.stringify(run.reply)}`);
  client.forgetSession(sessionId);
  return { span: delegateSpan(run, children, label), prompt: run.reply.at - run.sentAt };
}

function delegateSpan(run: PromptRun, children: number, label: string): number {
  const ofCall = run.frames.filter((f) => f.msg.params?.update?.toolCallId === DELEGATE_CALL);
  const start = ofCall.find((f) => f.msg.params.update.sessionUpdate === "tool_call");
  const done = ofCall.find((f) => f.msg.params.update.status === "completed");
  if (!start || !done) throw new Error(`${label}: the delegate_task call did not start and complete`);
  const results = done.msg.params.update.rawOutput?.results as { status: string }[] | undefined;
  if (results?.length !== children || results.some((r) => r.status !== "completed")) {
    throw new Error(`${label}: not every child completed: ${JSON.stringify(results)}`);
  }
  return done.at - start.at;
}

export async function measureSubagents(ctx: FigureContext): Promise<SummaryRow[]> {
  const rounds = ctx.quick ? 3 : 10;
  const service = await startService();
  ctx.defer(() => service.stop());
  ctx.log(`wrangler dev up in ${service.startSeconds.toFixed(1)} s; every child's model answer waits ${MODEL_DELAY_MS} ms; cap 3 children at once (default)`);
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  ctx.defer(() => client.close());
  await initialize(client);

  const one: number[] = [];
  const three: number[] = [];
  const prompts: { one: number[]; three: number[] } = { one: [], three: [] };
  ctx.log(`${rounds} rounds of (1 child, 3 children) after 1 warm-up round`);
  for (let i = 0; i <= rounds; i++) {
    ctx.checkTime(`round ${i}`);
    const a = await delegateRound(service, client, 1, `one-${i}`);
    const b = await delegateRound(service, client, 3, `three-${i}`);
    if (i === 0) continue;
    one.push(a.span);
    three.push(b.span);
    prompts.one.push(a.prompt);
    prompts.three.push(b.prompt);
  }

  const s1 = summarize(one);
  const s3 = summarize(three);
  ctx.log();
  ctx.log(
    table(LATENCY_HEADER, [
      latencyRow("delegate_task span, 1 child (ms)", s1),
      latencyRow("delegate_task span, 3 children (ms)", s3),
      latencyRow("whole prompt, 1 child (ms)", summarize(prompts.one)),
      latencyRow("whole prompt, 3 children (ms)", summarize(prompts.three)),
    ]),
  );
  const ratio = s3.p50 / s1.p50;
  const status = ratio < TARGET_RATIO ? ("met" as const) : ("missed" as const);
  return [
    {
      figure: "subagents",
      metric: "3 children / 1 child (median delegate_task span)",
      value: `${fmt(ratio)}×`,
      target: `< ${TARGET_RATIO}×`,
      status,
      ...(status === "missed" ? { note: `${fmt(ratio / TARGET_RATIO)}× the target` } : {}),
    },
    {
      figure: "subagents",
      metric: `span over the ${MODEL_DELAY_MS} ms model time, 1 child (median)`,
      value: `${fmt(s1.p50 - MODEL_DELAY_MS, 0)} ms`,
      target: "—",
      status: "info",
    },
    {
      figure: "subagents",
      metric: `span over the ${MODEL_DELAY_MS} ms model time, 3 children (median)`,
      value: `${fmt(s3.p50 - MODEL_DELAY_MS, 0)} ms`,
      target: "—",
      status: "info",
    },
  ];
}

if (isMain(import.meta.url)) {
  void runFigure("subagents", "three sub-agents vs one (parallel fan-out)", 10 * 60_000, measureSubagents);
}
