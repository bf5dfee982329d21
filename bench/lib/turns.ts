/**
 * ACP steps the figures share: initialize, open a session, run a prompt and
 * take it apart (first chunk, text, seqs), and find the mock's record of the
 * model call behind a prompt.
 */
import type { MockOpenAI, RecordedCall } from "../../test/support/mock-openai.js";
import type { AcpClient, Incoming, Reply, SessionTrack } from "./acp-client.js";

export const CWD = "/home/bench/project";

/** Asks for `_hermes/turn_ended`, as the proxy does: the figures check every turn ends with one. */
export async function initialize(client: AcpClient): Promise<void> {
  await client.call("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { hermes: { turnEnded: true } } } });
}

/** Resolves with the first frame of `track` at index ≥ `from` that matches, or rejects after `timeoutMs`. */
export function waitForFrame(track: SessionTrack, match: (f: Incoming) => boolean, from = 0, timeoutMs = 30_000): Promise<Incoming> {
  const found = track.frames.slice(from).find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      track.listener = undefined;
      reject(new Error(`no matching frame within ${timeoutMs} ms`));
    }, timeoutMs);
    track.listener = (frame) => {
      if (!match(frame)) return;
      clearTimeout(timer);
      track.listener = undefined;
      resolve(frame);
    };
  });
}

export const updateKind = (f: Incoming): string | undefined => f.msg.params?.update?.sessionUpdate;
export const isAgentChunk = (f: Incoming): boolean => updateKind(f) === "agent_message_chunk";
export const isTurnEnded = (f: Incoming): boolean => f.msg.method === "_hermes/turn_ended";

/** `_meta.hermes.seq` of a session/update, or `params.seq` of `_hermes/turn_ended`. */
export function seqOf(f: Incoming): number | undefined {
  const seq = f.msg.method === "_hermes/turn_ended" ? f.msg.params?.seq : f.msg.params?._meta?.hermes?.seq;
  return typeof seq === "number" ? seq : undefined;
}

export interface OpenedSession {
  sessionId: string;
  /** Seq of the last frame the session logged while opening (its available_commands_update). */
  baseSeq: number;
}

/** `session/new`, then waits for its available_commands_update so later seqs can be checked for gaps. */
export async function newSession(client: AcpClient, timeoutMs = 30_000): Promise<OpenedSession> {
  const { result } = await client.call<{ sessionId: string }>("session/new", { cwd: CWD, mcpServers: [] }, timeoutMs);
  const track = client.session(result.sessionId);
  const commands = await waitForFrame(track, (f) => updateKind(f) === "available_commands_update", 0, timeoutMs);
  return { sessionId: result.sessionId, baseSeq: seqOf(commands) ?? 0 };
}

export interface PromptRun {
  reply: Reply<{ stopReason: string }>;
  /** Frames of the session that arrived between sending the prompt and its response. */
  frames: Incoming[];
  sentAt: number;
  firstChunkAt: number | undefined;
}

/** Sends `session/prompt` now; resolves when the response arrives. */
export async function runPrompt(client: AcpClient, sessionId: string, text: string, timeoutMs = 60_000): Promise<PromptRun> {
  const track = client.session(sessionId);
  const from = track.frames.length;
  const reply = await client.request<{ stopReason: string }>("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, timeoutMs);
  if (reply.error) throw new Error(`session/prompt failed: ${reply.error.code} ${reply.error.message}`);
  const frames = track.frames.slice(from);
  return { reply, frames, sentAt: reply.sentAt, firstChunkAt: frames.find(isAgentChunk)?.at };
}

export function agentText(frames: readonly Incoming[]): string {
  return frames
    .filter(isAgentChunk)
    .map((f) => f.msg.params.update.content?.text ?? "")
    .join("");
}

export interface SeqCheck {
  ok: boolean;
  /** Session frames received. */
  received: number;
  /** Seqs in (baseSeq, last] that never arrived. */
  missing: number[];
  problem?: string;
}

/**
 * Live frames of one prompt, checked against the session log's numbering:
 * seqs strictly increasing, the last one is `_hermes/turn_ended`, and the only
 * seq missing after `baseSeq` is `allowedMissing` (the prompter's own
 * user_message_chunk, which the service logs but does not echo to it).
 */
export function checkSeqs(frames: readonly Incoming[], baseSeq: number, allowedMissing = 1): SeqCheck {
  const seqs = frames.map(seqOf);
  if (seqs.some((s) => s === undefined)) return { ok: false, received: frames.length, missing: [], problem: "a frame without seq" };
  const list = seqs as number[];
  for (let i = 1; i < list.length; i++) {
    if (list[i]! <= list[i - 1]!) return { ok: false, received: frames.length, missing: [], problem: `seq ${list[i]} after ${list[i - 1]}` };
  }
  const last = list[list.length - 1];
  if (last === undefined || !isTurnEnded(frames[frames.length - 1]!)) {
    return { ok: false, received: frames.length, missing: [], problem: "no _hermes/turn_ended at the end" };
  }
  const seen = new Set(list);
  const missing: number[] = [];
  for (let s = baseSeq + 1; s <= last; s++) if (!seen.has(s)) missing.push(s);
  const ok = missing.length <= allowedMissing && (list[0] ?? 0) > baseSeq;
  return { ok, received: frames.length, missing, ...(ok ? {} : { problem: `missing seqs ${missing.slice(0, 10).join(",")}` }) };
}

/** A prompt's unique tag, so its model call can be found among the mock's records. */
export const nonce = (label: string, i: number): string => `bench-${label}-${i}-${Math.random().toString(36).slice(2, 8)}`;

/** The mock's record of the model call whose last message carries `tag`. */
export function callFor(mock: MockOpenAI, tag: string, key?: string): RecordedCall | undefined {
  const calls = mock.calls(key);
  for (let i = calls.length - 1; i >= 0; i--) {
    const last = calls[i]!.body.messages[calls[i]!.body.messages.length - 1];
    if (last && JSON.stringify(last.content).includes(tag)) return calls[i];
  }
  return undefined;
}

/** Indexes the mock's calls by tag once (for many prompts at a time). */
export function callsByTag(mock: MockOpenAI, tags: readonly string[], key?: string): Map<string, RecordedCall> {
  const wanted = new Set(tags);
  const found = new Map<string, RecordedCall>();
  for (const call of mock.calls(key)) {
    const last = call.body.messages[call.body.messages.length - 1];
    const text = JSON.stringify(last?.content ?? "");
    const match = /bench-[\w-]+/.exec(text);
    if (match && wanted.has(match[0])) found.set(match[0], call);
  }
  return found;
}

export interface Overhead {
  /** (first chunk received − prompt sent) − (mock first token − mock request start). */
  overhead: number;
  /** Prompt sent → mock saw the request: the way in (WebSocket, connection DO, session DO, fetch). */
  inbound: number;
  /** Mock wrote the first token → client received the first chunk: the way out. */
  outbound: number;
  /** The mock's own time to first token. */
  model: number;
}

export function overheadOf(sentAt: number, firstChunkAt: number, call: RecordedCall): Overhead | undefined {
  if (call.firstTokenAt === undefined) return undefined;
  const model = call.firstTokenAt - call.at;
  return {
    overhead: firstChunkAt - sentAt - model,
    inbound: call.at - sentAt,
    outbound: firstChunkAt - call.firstTokenAt,
    model,
  };
}

/** "t0 t1 … t{n-1}": what a mock `tokens: n` step streams. */
export const tokenText = (n: number): string => Array.from({ length: n }, (_, i) => (i === 0 ? "t0" : ` t${i}`)).join("");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
