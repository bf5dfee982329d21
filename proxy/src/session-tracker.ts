/**
 * What the proxy must remember so that a dropped WebSocket loses nothing and
 * duplicates nothing: the last `_meta.hermes.seq` forwarded per session, each
 * session's setup (to re-attach it), and the editor's requests still waiting
 * for an answer. Pure: it never does I/O, it returns decisions.
 * @module
 */
import { ErrorCode, idKey, type Frame, type JsonRpcError, type JsonRpcId } from "./jsonrpc.js";
import {
  readSessionId,
  readSessionSetup,
  readTurnEnded,
  readTurnState,
  readUpdateSeq,
  type PromptOutcome,
  type SessionSetup,
  type TurnEnded,
  type TurnState,
} from "./protocol.js";

/** An answer the proxy writes to the editor in the service's place. */
export interface EditorAnswer {
  readonly id: JsonRpcId;
  readonly result?: unknown;
  readonly error?: JsonRpcError;
}

export interface ServiceVerdict {
  /** Whether the frame goes to the editor. */
  readonly forward: boolean;
  /** Answers to pending editor requests that this frame settles. */
  readonly answers: readonly EditorAnswer[];
  /** Why a frame was held back, for debug logs. */
  readonly dropped?: string;
}

export interface ReattachTarget {
  readonly sessionId: string;
  /** The last seq forwarded; 0 when none was seen (seqs are assumed to start at 1). */
  readonly afterSeq: number;
  readonly setup: SessionSetup | undefined;
}

export type ReattachOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: JsonRpcError };

/** A request frame the proxy sends again, unchanged, on the new connection. */
export interface Resend {
  readonly id: JsonRpcId;
  readonly text: string;
}

/** What re-attaching one session decided: answers for the editor, prompts to send again. */
export interface ReattachDecision {
  readonly answers: EditorAnswer[];
  /**
   * Prompts the service never saw (the frame was lost with the old socket).
   * They are no longer marked as sent: the caller must queue them for the new
   * connection, ahead of anything the editor sent later.
   */
  readonly resend: Resend[];
}

/**
 * Requests that are harmless to send twice. If the socket drops before their
 * response, they are re-sent after re-attaching; any other unanswered request
 * (say `session/new`) gets an error, since repeating it could act twice.
 * `session/prompt` is neither: its outcome comes back through the turn log.
 */
const RESEND_SAFE = new Set([
  "initialize",
  "session/load",
  "session/resume",
  "session/list",
  "session/set_mode",
  "session/set_config_option",
]);

interface SessionState {
  lastSeq: number | undefined;
  setup: SessionSetup | undefined;
  /** Confirmed by the service (created, loaded or resumed): worth re-attaching. */
  attached: boolean;
}

interface SentOn {
  readonly generation: number;
  readonly connectionId: string | null;
}

interface Pending {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly text: string;
  readonly sessionId: string | undefined;
  readonly setup: SessionSetup | undefined;
  /** Undefined while the request waits in the outbox. */
  sentOn: SentOn | undefined;
  /** How many times it went out; more than once after a drop re-sent it. */
  sends: number;
  /** A live `_hermes/turn_ended` seen before the prompt's own response. */
  endedWith: PromptOutcome | undefined;
  /** A prompt re-sent after a reconnect because the service had never seen it; only once. */
  resent: boolean;
}

export class SessionTracker {
  readonly #sessions = new Map<string, SessionState>();
  /** Insertion order is the editor's order, which re-sends must keep. */
  readonly #pending = new Map<string, Pending>();
  readonly #connectionIds = new Set<string>();
  #generation = 0;
  #connected = false;
  #initialize: { params: unknown; answered: boolean } | undefined;

  /** The editor's `initialize` params once it has been answered: what a reconnect replays. */
  get initializeToReplay(): { params: unknown } | undefined {
    return this.#initialize?.answered ? { params: this.#initialize.params } : undefined;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  isPending(id: JsonRpcId): boolean {
    return this.#pending.has(idKey(id));
  }

  /** Records a request from the editor (queued or about to be sent). */
  editorRequest(frame: Extract<Frame, { kind: "request" }>): void {
    const { id, method, params, text } = frame;
    const sessionId = readSessionId(params);
    const setup = method === "session/new" || method === "session/load" || method === "session/resume" ? readSessionSetup(params) : undefined;
    this.#pending.set(idKey(id), { id, method, text, sessionId, setup, sentOn: undefined, sends: 0, endedWith: undefined, resent: false });
    if (method === "initialize") this.#initialize = { params, answered: false };
    if (sessionId !== undefined && (method === "session/prompt" || method === "session/load" || method === "session/resume")) {
      const session = this.#upsert(sessionId);
      // A prompt implies the editor holds this session, even if this proxy never saw it created.
      if (method === "session/prompt") session.attached = true;
    }
  }

  /** Records that a request went out on the current connection. */
  editorSent(id: JsonRpcId, connectionId: string | null): void {
    const pending = this.#pending.get(idKey(id));
    if (!pending) return;
    pending.sentOn = { generation: this.#generation, connectionId };
    pending.sends += 1;
    // The editor asked for the full history: let the replayed seqs through
    // again. Not on a re-send, though: the replay the editor already got from
    // the first attempt must not start over.
    if (pending.method === "session/load" && pending.sessionId !== undefined && pending.sends === 1) {
      this.#upsert(pending.sessionId).lastSeq = undefined;
    }
  }

  connected(connectionId: string | null): void {
    this.#generation += 1;
    this.#connected = true;
    if (connectionId !== null) this.#connectionIds.add(connectionId);
  }

  /**
   * The socket is gone. Returns answers for requests that can be settled now
   * and the frames of requests to send again, in their original order.
   */
  disconnected(): { answers: EditorAnswer[]; resend: Array<{ id: JsonRpcId; text: string }> } {
    this.#connected = false;
    const answers: EditorAnswer[] = [];
    const resend: Array<{ id: JsonRpcId; text: string }> = [];
    for (const [key, pending] of this.#pending) {
      if (!pending.sentOn) continue;
      if (pending.method === "session/prompt") {
        if (pending.endedWith !== undefined) {
          answers.push({ id: pending.id, ...pending.endedWith });
          this.#pending.delete(key);
        }
      } else if (RESEND_SAFE.has(pending.method)) {
        pending.sentOn = undefined;
        resend.push({ id: pending.id, text: pending.text });
      } else {
        answers.push({
          id: pending.id,
          error: {
            code: ErrorCode.internalError,
            message: `The connection to the hermes-edge service dropped before it answered ${pending.method}; it may or may not have taken effect.`,
            data: { reason: "connection_lost" },
          },
        });
        this.#pending.delete(key);
      }
    }
    return { answers, resend };
  }

  /** Decides what to do with one frame from the service. */
  fromService(frame: Frame): ServiceVerdict {
    if (frame.kind === "request") return { forward: true, answers: [] };
    if (frame.kind === "response") return this.#response(frame);
    if (frame.method === "session/update") {
      const update = readUpdateSeq(frame.params);
      if (update && !this.#advance(update.sessionId, update.seq)) {
        return { forward: false, answers: [], dropped: `session/update seq ${update.seq} already forwarded` };
      }
      return { forward: true, answers: [] };
    }
    if (frame.method === "_hermes/turn_ended") {
      const ended = readTurnEnded(frame.params);
      if (!ended) return { forward: true, answers: [] };
      if (!this.#advance(ended.sessionId, ended.seq)) {
        return { forward: false, answers: [], dropped: `_hermes/turn_ended seq ${ended.seq} already forwarded` };
      }
      return { forward: true, answers: this.#turnEnded(ended) };
    }
    return { forward: true, answers: [] };
  }

  /** The sessions to re-attach after a reconnect. */
  reattachTargets(): ReattachTarget[] {
    const targets: ReattachTarget[] = [];
    for (const [sessionId, session] of this.#sessions) {
      if (session.attached) targets.push({ sessionId, afterSeq: session.lastSeq ?? 0, setup: session.setup });
    }
    return targets;
  }

  /**
   * The proxy's re-attach of `sessionId` finished (its replay has already
   * passed through {@link fromService}). Settles prompts from an earlier
   * connection whose turn the service says is over.
   *
   * A prompt still pending here got no `_hermes/turn_ended` in the replay. If
   * the session is idle, either the service reports that very prompt as the
   * last turn (`lastRequestId` and `lastConnectionId`): it is answered with
   * `lastStopReason`; or the service never saw the prompt (its frame was lost
   * with the old socket, so it never started): it is sent again, once. A
   * prompt that was already re-sent and is still unaccounted for gets an error.
   */
  reattached(sessionId: string, outcome: ReattachOutcome): ReattachDecision {
    const answers: EditorAnswer[] = [];
    const resend: Resend[] = [];
    const earlier = [...this.#pending].filter(
      ([, p]) => p.method === "session/prompt" && p.sessionId === sessionId && p.sentOn !== undefined && p.sentOn.generation < this.#generation,
    );
    if (!outcome.ok) {
      this.#sessions.delete(sessionId);
      for (const [key, pending] of earlier) {
        answers.push({
          id: pending.id,
          error: {
            code: outcome.error.code,
            message: `Could not re-attach session ${sessionId} after reconnecting: ${outcome.error.message}`,
            data: { reason: "reattach_failed" },
          },
        });
        this.#pending.delete(key);
      }
      return { answers, resend };
    }
    const turn = readTurnState(outcome.result);
    if (turn?.state !== "idle") return { answers, resend };
    for (const [key, pending] of earlier) {
      if (this.#wasLastTurn(pending, turn)) {
        answers.push(
          turn.lastStopReason !== undefined
            ? { id: pending.id, result: { stopReason: turn.lastStopReason } }
            : {
                id: pending.id,
                error: {
                  code: ErrorCode.internalError,
                  message: `After reconnecting, the service reports session ${sessionId} idle but did not say how this prompt ended.`,
                  data: { reason: "turn_outcome_unknown" },
                },
              },
        );
        this.#pending.delete(key);
      } else if (!pending.resent) {
        pending.resent = true;
        pending.sentOn = undefined;
        resend.push({ id: pending.id, text: pending.text });
      } else {
        answers.push({
          id: pending.id,
          error: {
            code: ErrorCode.internalError,
            message:
              `The hermes-edge service lost this prompt twice: after reconnecting, session ${sessionId} is idle and ` +
              "has no record of it having run. Send it again.",
            data: { reason: "prompt_lost" },
          },
        });
        this.#pending.delete(key);
      }
    }
    return { answers, resend };
  }

  /** Answers every pending editor request with `error` (give-up, fatal auth failure). */
  failAll(error: JsonRpcError): EditorAnswer[] {
    const answers = [...this.#pending.values()].map((p) => ({ id: p.id, error }));
    this.#pending.clear();
    return answers;
  }

  #response(frame: Extract<Frame, { kind: "response" }>): ServiceVerdict {
    if (frame.id === null) return { forward: true, answers: [] };
    const key = idKey(frame.id);
    const pending = this.#pending.get(key);
    if (!pending) return { forward: false, answers: [], dropped: `response to ${key} is not awaited (already answered)` };
    this.#pending.delete(key);
    const ok = frame.error === undefined;
    switch (pending.method) {
      case "initialize":
        if (this.#initialize) this.#initialize.answered = ok;
        break;
      case "session/new": {
        const sessionId = ok ? readSessionId(frame.result) : undefined;
        if (sessionId !== undefined) {
          const session = this.#upsert(sessionId);
          session.setup = pending.setup;
          session.attached = true;
        }
        break;
      }
      case "session/load":
      case "session/resume":
        if (pending.sessionId !== undefined) {
          const session = this.#upsert(pending.sessionId);
          if (ok) {
            session.attached = true;
            session.setup = pending.setup ?? session.setup;
          } else if (!session.attached) {
            this.#sessions.delete(pending.sessionId);
          }
        }
        break;
      case "session/close":
      case "session/delete":
        if (ok && pending.sessionId !== undefined) this.#sessions.delete(pending.sessionId);
        break;
    }
    return { forward: true, answers: [] };
  }

  #turnEnded({ sessionId, requestId, connectionId, outcome }: TurnEnded): EditorAnswer[] {
    if (requestId === null) return [];
    const key = idKey(requestId);
    const pending = this.#pending.get(key);
    if (!pending || pending.method !== "session/prompt" || pending.sessionId !== sessionId || !pending.sentOn) return [];
    // The same request id may belong to another client of the session; the
    // connection id tells whether this turn was started through this proxy.
    if (connectionId !== undefined && !this.#sentThrough(pending.sentOn, connectionId)) return [];
    if (this.#connected && pending.sentOn.generation === this.#generation) {
      // The prompt's own response is on its way on this connection; it is the
      // exact answer, so keep waiting for it and remember the outcome in case
      // the socket drops first.
      pending.endedWith = outcome;
      return [];
    }
    this.#pending.delete(key);
    return [{ id: pending.id, ...outcome }];
  }

  /** Whether `connectionId` may be the connection `sentOn` names (unknown ids are given the benefit of the doubt). */
  #sentThrough(sentOn: SentOn, connectionId: string): boolean {
    const ours = sentOn.connectionId !== null ? sentOn.connectionId === connectionId : this.#connectionIds.has(connectionId);
    return ours || this.#connectionIds.size === 0;
  }

  /**
   * Whether the resumed session's last finished turn was started by `pending`.
   * Both the request id and the connection must match: every editor numbers
   * its requests from 0, so an id alone may be another client's prompt.
   */
  #wasLastTurn(pending: Pending, turn: TurnState): boolean {
    if (turn.lastRequestId === undefined || turn.lastConnectionId === undefined || !pending.sentOn) return false;
    return idKey(turn.lastRequestId) === idKey(pending.id) && this.#sentThrough(pending.sentOn, turn.lastConnectionId);
  }

  /** Moves a session's seq forward; false when `seq` was already forwarded. */
  #advance(sessionId: string, seq: number): boolean {
    const session = this.#upsert(sessionId);
    if (session.lastSeq !== undefined && seq <= session.lastSeq) return false;
    session.lastSeq = seq;
    return true;
  }

  #upsert(sessionId: string): SessionState {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { lastSeq: undefined, setup: undefined, attached: false };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }
}
