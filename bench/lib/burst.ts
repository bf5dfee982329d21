/**
 * Many sessions prompting at once (figures 3 and 5). Sessions are opened
 * first (not timed), then every prompt is written in one synchronous loop, and
 * each answer is checked: the response came (`end_turn`), the text is exactly
 * what the mock streamed, and the session's seqs have no gap besides the
 * prompter's own user_message_chunk.
 */
import type { MockOpenAI } from "../../test/support/mock-openai.js";
import type { AcpClient, Reply } from "./acp-client.js";
import { summarize, type Summary } from "./stats.js";
import { agentText, callsByTag, checkSeqs, isAgentChunk, newSession, nonce, overheadOf, tokenText, type OpenedSession } from "./turns.js";

export interface BurstOptions {
  label: string;
  mock: MockOpenAI;
  /** Sessions are spread round-robin over these clients. */
  clients: AcpClient[];
  sessions: number;
  /** The answer: `tokens` tokens, paced at `chunkIntervalMs`. */
  tokens: number;
  chunkIntervalMs: number;
  timeoutMs: number;
  checkTime?: (what: string) => void;
  /** CPU time of the Worker's process (ms), read around the prompts. */
  cpu?: () => number | undefined;
}

export interface BurstResult {
  sessions: number;
  answered: number;
  /** Answers whose text and seqs were complete. */
  complete: number;
  problems: string[];
  /** Session updates received during the prompts (all sessions). */
  updates: number;
  overhead: Summary;
  /** Prompt sent → response received. */
  turn: Summary;
  /** First prompt written → last response received. */
  wallMs: number;
  setupMs: number;
  /** How long writing all the prompts took. */
  sendSpreadMs: number;
  /** Worker CPU time from the first prompt written to the last response (when `cpu` was given). */
  cpuMs?: number;
}

export async function promptBurst(o: BurstOptions): Promise<BurstResult> {
  const setupStart = performance.now();
  const perClient = o.clients.map(() => [] as OpenedSession[]);
  // Open sessions one by one per client, all clients in parallel.
  await Promise.all(
    o.clients.map(async (client, c) => {
      for (let s = c; s < o.sessions; s += o.clients.length) {
        o.checkTime?.(`opening session ${s}`);
        perClient[c]!.push(await newSession(client, o.timeoutMs));
      }
    }),
  );
  const setupMs = performance.now() - setupStart;
  const key = `burst-${o.label}-${Math.random().toString(36).slice(2, 8)}`;
  o.mock.setScript(key, Array.from({ length: o.sessions }, () => ({ tokens: o.tokens, chunkIntervalMs: o.chunkIntervalMs })));

  interface Job {
    client: AcpClient;
    session: OpenedSession;
    tag: string;
    from: number;
    reply?: Promise<Reply<{ stopReason: string }>>;
  }
  const jobs: Job[] = [];
  for (let i = 0; ; i++) {
    let added = false;
    for (let c = 0; c < o.clients.length; c++) {
      const session = perClient[c]![i];
      if (!session) continue;
      added = true;
      jobs.push({ client: o.clients[c]!, session, tag: nonce(o.label, jobs.length), from: 0 });
    }
    if (!added) break;
  }
  const cpuBefore = o.cpu?.();
  const firstSent = performance.now();
  for (const job of jobs) {
    job.from = job.client.session(job.session.sessionId).frames.length;
    job.reply = job.client.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId: job.session.sessionId, prompt: [{ type: "text", text: `Work on this ${job.tag} [[mock:${key}]]` }] },
      o.timeoutMs,
    );
  }
  const sendSpreadMs = performance.now() - firstSent;
  const replies = await Promise.allSettled(jobs.map((j) => j.reply!));
  const lastResponse = Math.max(...replies.map((r) => (r.status === "fulfilled" ? r.value.at : 0)));
  const cpuAfter = o.cpu?.();

  const calls = callsByTag(o.mock, jobs.map((j) => j.tag), key);
  const expected = tokenText(o.tokens);
  const problems: string[] = [];
  const overheads: number[] = [];
  const turns: number[] = [];
  let answered = 0;
  let complete = 0;
  let updates = 0;
  replies.forEach((settled, i) => {
    const job = jobs[i]!;
    const track = job.client.session(job.session.sessionId);
    const frames = track.frames.slice(job.from);
    updates += frames.length;
    if (settled.status === "rejected") {
      problems.push(`${job.tag}: ${String(settled.reason)}`);
      return;
    }
    const reply = settled.value;
    if (reply.error || reply.result?.stopReason !== "end_turn") {
      problems.push(`${job.tag}: ${JSON.stringify(reply.error ?? reply.result)}`);
      return;
    }
    answered += 1;
    turns.push(reply.at - reply.sentAt);
    const text = agentText(frames);
    const seqs = checkSeqs(frames, job.session.baseSeq);
    if (text === expected && seqs.ok) complete += 1;
    else problems.push(`${job.tag}: text ${text === expected ? "ok" : `differs (${text.length}/${expected.length} chars)`}, seqs ${seqs.problem ?? "ok"}`);
    const call = calls.get(job.tag);
    const first = frames.find(isAgentChunk);
    const o2 = call && first ? overheadOf(reply.sentAt, first.at, call) : undefined;
    if (o2) overheads.push(o2.overhead);
    else problems.push(`${job.tag}: no model call or no first chunk to measure`);
    job.client.forgetSession(job.session.sessionId);
  });
  return {
    sessions: o.sessions,
    answered,
    complete,
    problems,
    updates,
    overhead: summarize(overheads),
    turn: summarize(turns),
    wallMs: lastResponse - firstSent,
    setupMs,
    sendSpreadMs,
    ...(cpuBefore !== undefined && cpuAfter !== undefined ? { cpuMs: cpuAfter - cpuBefore } : {}),
  };
}
