/**
 * Parallel tool calls — do the reads of one model message run at once?
 *
 * The model asks for one read, or three in one message; the editor (this
 * client) answers every `fs/read_text_file` after `READ_DELAY_MS` = 1000 ms.
 * The span is measured at the client: from the first `tool_call` of the
 * message to the last `completed` update. Three reads run together take about
 * as long as one (target: under 1.3×, i.e. about 1 s); in turn they take 3 s.
 * Rounds alternate one / three reads, each in a new session; one warm-up
 * round is not counted.
 *
 * `--baseline DIR` (or BENCH_BASELINE_DIR) measures another checkout first in
 * the same run, e.g. an export of main, so before and after share the machine's load.
 *
 *   npx tsx bench/parallel-tools.ts [--quick] [--baseline DIR]
 */
import type { WsAcpClient } from "./lib/acp-client.js";
import { BASELINE_LABEL, checkouts, startServiceIn } from "./lib/baseline.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import type { Service } from "./lib/service.js";
import { fmt, LATENCY_HEADER, latencyRow, summarize, table } from "./lib/stats.js";
import { CWD, newSession, nonce, runPrompt } from "./lib/turns.js";

const READ_DELAY_MS = 1_000;
const TARGET_RATIO = 1.3;

/** One message of `reads` read_file calls; the span from the first announcement to the last completion. */
async function readRound(service: Service, client: WsAcpClient, reads: number, tag: string): Promise<number> {
  const { sessionId } = await newSession(client);
  const ids = Array.from({ length: reads }, (_, i) => `call_read_${i}`);
  const key = nonce(tag, 0);
  service.mock.setScript(key, [
    { toolCalls: ids.map((id, i) => ({ id, name: "read_file", arguments: { path: `${CWD}/file${i}.ts` } })) },
    { text: "Read them." },
  ]);
  const run = await runPrompt(client, sessionId, `Read [[mock:${key}]]`, 60_000);
  client.forgetSession(sessionId);
  if (run.reply.result?.stopReason !== "end_turn") throw new Error(`${tag}: ${JSON.stringify(run.reply)}`);
  const ofCalls = run.frames.filter((f) => ids.includes(f.msg.params?.update?.toolCallId));
  const starts = ofCalls.filter((f) => f.msg.params.update.sessionUpdate === "tool_call").map((f) => f.at);
  const ends = ofCalls.filter((f) => f.msg.params.update.status === "completed").map((f) => f.at);
  if (starts.length !== reads || ends.length !== reads) throw new Error(`${tag}: not every read started and completed`);
  return Math.max(...ends) - Math.min(...starts);
}

async function measureIn(ctx: FigureContext, dir: string, rounds: number): Promise<{ one: number[]; three: number[] }> {
  const { service, client } = await startServiceIn(dir);
  try {
    ctx.log(`${dir}: wrangler dev up in ${service.startSeconds.toFixed(1)} s`);
    client.answerAgent = async (method, params: { path?: string }) => {
      if (method !== "fs/read_text_file") throw new Error(`unexpected ${method}`);
      await new Promise((r) => setTimeout(r, READ_DELAY_MS));
      return { content: `contents of ${params.path}` };
    };
    await client.call("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } });
    const one: number[] = [];
    const three: number[] = [];
    for (let i = 0; i <= rounds; i++) {
      ctx.checkTime(`round ${i}`);
      const a = await readRound(service, client, 1, `one-${i}`);
      const b = await readRound(service, client, 3, `three-${i}`);
      if (i === 0) continue;
      one.push(a);
      three.push(b);
    }
    ctx.log(table(LATENCY_HEADER, [latencyRow("1 read (ms)", summarize(one)), latencyRow("3 reads in one message (ms)", summarize(three))]));
    return { one, three };
  } finally {
    await client.close();
    await service.stop();
  }
}

export async function measureParallelTools(ctx: FigureContext): Promise<SummaryRow[]> {
  const rounds = ctx.quick ? 3 : 10;
  ctx.log(`the editor answers every read after ${READ_DELAY_MS} ms; ${rounds} rounds of (1 read, 3 reads) after 1 warm-up round`);
  const rows: SummaryRow[] = [];
  for (const { label: who, dir } of checkouts()) {
    const { one, three } = await measureIn(ctx, dir, rounds);
    const s1 = summarize(one);
    const s3 = summarize(three);
    const ratio = s3.p50 / s1.p50;
    const target = who === BASELINE_LABEL ? "—" : `< ${TARGET_RATIO}×`;
    const status = who === BASELINE_LABEL ? ("info" as const) : ratio < TARGET_RATIO ? ("met" as const) : ("missed" as const);
    rows.push(
      { figure: "parallel-tools", metric: `${who}3 reads / 1 read (median span; the editor takes ${READ_DELAY_MS} ms per read)`, value: `${fmt(ratio)}×`, target, status },
      { figure: "parallel-tools", metric: `${who}3 reads in one message (median span)`, value: `${fmt(s3.p50, 0)} ms`, target: "—", status: "info" },
    );
  }
  return rows;
}

if (isMain(import.meta.url)) {
  void runFigure("parallel-tools", "three reads of one model message versus one", 10 * 60_000, measureParallelTools);
}
