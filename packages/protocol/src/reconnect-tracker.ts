/**
 * What a client of the service (the stdio proxy, a web page) must remember so
 * that a dropped WebSocket loses nothing and duplicates nothing: the last
 * `_meta.hermes.seq` forwarded per session, each session's setup (to re-attach
 * it), and the client's requests still waiting for an answer. Pure: it never
 * does I/O and runs anywhere (no Node APIs); it returns decisions.
 * @module
 */
import { AGENT_METHODS } from "@agentclientprotocol/sdk";
import { AGENT_METHODS as UNSTABLE_METHODS } from "@agentclientprotocol/sdk/unstable";
import type { ErrorResponse } from "@agentclientprotocol/sdk";
import { idKey, type Frame, type IncomingRequest, type IncomingResponse, type RequestId } from "./envelope.js";
import { readConnectionId, readTurnState, readUpdateSeq, type TurnState } from "./hermes-meta.js";
import { readSessionId, readSessionSetup, type SessionSetup } from "./session-setup.js";
import { connectionLost, promptLost, reattachFailed, turnOutcomeUnknown } from "./tracker-errors.js";
import type { ClientAnswer, ReattachDecision, ReattachOutcome, ReattachTarget, Resend, ServiceVerdict } from "./tracker-types.js";
import { readTurnEnded, TURN_ENDED, type PromptOutcome, type TurnEnded } from "./turn-ended.js";

const M = AGENT_METHODS;

/**
 * Requests that are harmless to send twice. If the socket drops before their
 * response, they are re-sent after re-attaching; any other unanswered request
 * (say `session/new`) gets an error, since repeating it could act twice.
 * `session/prompt` is neither: its outcome comes back through the turn log.
 */
const RESEND_SAFE = new Set<string>([M.initialize, M.session_load, M.session_resume, M.session_list, M.session_set_mode, M.session_set_config_option]);

/** `session/fork` (unstable ACP) creates a session, as `session/new` does. */
const FORK = UNSTABLE_METHODS.session_fork;

/** The requests whose params carry the setup worth replaying. */
const SETS_UP = new Set<string>([M.session_new, FORK, M.session_load, M.session_resume]);

interface SessionState {
  lastSeq: number | undefined;
  setup: SessionSetup | undefined;
  /** Confirmed by the service (created, loaded or resumed): worth re-attaching. */
  attached: boolean;
  /** The client's own `session/load` is replaying the whole history: its own prompts included. */
  fullReplay: boolean;
}

interface SentOn {
  readonly generation: number;
  readonly connectionId: string | null;
}

interface Pending {
  readonly id: RequestId;
  readonly method: string;
  readonly text: string;
  readonly sessionId: string | undefined;
  readonly setup: SessionSetup | undefined;
  /** Undefined while the request waits to be sent. */
  sentOn: SentOn | undefined;
  /** How many times it went out; more than once after a drop re-sent it. */
  sends: number;
  /** A live `_hermes/turn_ended` seen before the prompt's own response. */
  endedWith: PromptOutcome | undefined;
  /** A prompt re-sent after a reconnect because the service had never seen it; only once. */
  resent: boolean;
}

export class ReconnectTracker {
  readonly #sessions = new Map<string, SessionState>();
  /** Insertion order is the client's order, which re-sends must keep. */
  readonly #pending = new Map<string, Pending>();
  readonly #connectionIds = new Set<string>();
  #generation = 0;
  #connected = false;
  #initialize: { params: unknown; answered: boolean } | undefined;

  /** The client's `initialize` params once it has been answered: what a reconnect replays. */
  get initializeToReplay(): { params: unknown } | undefined {
    return this.#initialize?.answered ? { params: this.#initialize.params } : undefined;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  isPending(id: RequestId): boolean {
    return this.#pending.has(idKey(id));
  }

  /**
   * The client's `initialize` was answered without the service (the proxy
   * had no token yet): a connection made later replays it, as after a drop.
   */
  initializedLocally(params: unknown): void {
    this.#initialize = { params, answered: true };
  }

  /** Records a request from the client (queued or about to be sent); `text` is the frame as it goes out. */
  clientRequest(message: IncomingRequest, text: string): void {
    const { id, method, params } = message;
    const sessionId = readSessionId(params);
    const setup = SETS_UP.has(method) ? readSessionSetup(params) : undefined;
    this.#pending.set(idKey(id), { id, method, text, sessionId, setup, sentOn: undefined, sends: 0, endedWith: undefined, resent: false });
    if (method === M.initialize) this.#initialize = { params, answered: false };
    if (sessionId !== undefined && (method === M.session_prompt || method === M.session_load || method === M.session_resume)) {
      const session = this.#upsert(sessionId);
      // A prompt implies the client holds this session, even if this tracker never saw it created.
      if (method === M.session_prompt) session.attached = true;
    }
  }

  /** Records that a request went out on the current connection. */
  clientSent(id: RequestId, connectionId: string | null): void {
    const pending = this.#pending.get(idKey(id));
    if (!pending) return;
    pending.sentOn = { generation: this.#generation, connectionId };
    pending.sends += 1;
    // The client asked for the full history: let the replayed seqs through
    // again. Not on a re-send, though: the replay the client already got from
    // the first attempt must not start over.
    if (pending.method === M.session_load && pending.sessionId !== undefined && pending.sends === 1) {
      const session = this.#upsert(pending.sessionId);
      session.lastSeq = undefined;
      session.fullReplay = true;
    }
  }

  connected(connectionId: string | null): void {
    this.#generation += 1;
    this.#connected = true;
    if (connectionId !== null) this.#connectionIds.add(connectionId);
  }

  /**
   * The service named this connection's id in an `initialize` answer (a
   * browser cannot read the upgrade's `Acp-Connection-Id`). Without any id,
   * every connection's prompts would pass for this client's.
   */
  identified(connectionId: string): void {
    this.#connectionIds.add(connectionId);
  }

  /**
   * The socket is gone. Returns answers for requests that can be settled now
   * and the frames of requests to send again, in their original order.
   */
  disconnected(): { answers: ClientAnswer[]; resend: Resend[] } {
    this.#connected = false;
    const answers: ClientAnswer[] = [];
    const resend: Resend[] = [];
    for (const [key, pending] of this.#pending) {
      if (!pending.sentOn) continue;
      if (pending.method === M.session_prompt) {
        if (pending.endedWith !== undefined) {
          answers.push({ id: pending.id, ...pending.endedWith });
          this.#pending.delete(key);
        }
      } else if (RESEND_SAFE.has(pending.method)) {
        pending.sentOn = undefined;
        resend.push({ id: pending.id, text: pending.text });
      } else {
        answers.push({ id: pending.id, error: connectionLost(pending.method) });
        this.#pending.delete(key);
      }
    }
    return { answers, resend };
  }

  /** Decides what to do with one frame from the service. */
  fromService(frame: Frame): ServiceVerdict {
    // Repeats of the service's requests are the client's to hold back (`ServiceRequests`): it knows when its answers went out.
    if (frame.kind === "request") return { forward: true, answers: [] };
    if (frame.kind === "response") return this.#response(frame.message);
    const { method, params } = frame.message;
    if (method === "session/update") {
      const update = readUpdateSeq(params);
      if (update && !this.#advance(update.sessionId, update.seq)) {
        return { forward: false, answers: [], dropped: `session/update seq ${update.seq} already forwarded` };
      }
      // The service never sends a prompt's own connection its user_message_chunk; a re-attach's
      // replay after a drop does, and the client shows that prompt already.
      if (update?.promptedThrough !== undefined && this.#connectionIds.has(update.promptedThrough) && !this.#sessions.get(update.sessionId)?.fullReplay) {
        return { forward: false, answers: [], dropped: `session/update seq ${update.seq} is the client's own prompt` };
      }
      return { forward: true, answers: [] };
    }
    if (method === TURN_ENDED) {
      const ended = readTurnEnded(params);
      if (!ended) return { forward: true, answers: [] };
      if (!this.#advance(ended.sessionId, ended.seq)) {
        return { forward: false, answers: [], dropped: `${TURN_ENDED} seq ${ended.seq} already forwarded` };
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
   * The client's re-attach of `sessionId` finished (its replay has already
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
    const answers: ClientAnswer[] = [];
    const resend: Resend[] = [];
    const earlier = [...this.#pending].filter(
      ([, p]) => p.method === M.session_prompt && p.sessionId === sessionId && p.sentOn !== undefined && p.sentOn.generation < this.#generation,
    );
    if (!outcome.ok) {
      this.#sessions.delete(sessionId);
      for (const [key, pending] of earlier) {
        answers.push({ id: pending.id, error: reattachFailed(sessionId, outcome.error) });
        this.#pending.delete(key);
      }
      return { answers, resend };
    }
    const turn = readTurnState(outcome.result);
    if (turn?.state !== "idle") return { answers, resend };
    for (const [key, pending] of earlier) {
      if (this.#wasLastTurn(pending, turn)) {
        const { lastStopReason, lastError } = turn;
        answers.push(
          lastError
            ? { id: pending.id, error: lastError }
            : lastStopReason != null
              ? { id: pending.id, result: { stopReason: lastStopReason } }
              : { id: pending.id, error: turnOutcomeUnknown(sessionId) },
        );
        this.#pending.delete(key);
      } else if (!pending.resent) {
        pending.resent = true;
        pending.sentOn = undefined;
        resend.push({ id: pending.id, text: pending.text });
      } else {
        answers.push({ id: pending.id, error: promptLost(sessionId) });
        this.#pending.delete(key);
      }
    }
    return { answers, resend };
  }

  /** Answers every pending client request with `error` (give-up, refused credentials, logout). */
  failAll(error: ErrorResponse): ClientAnswer[] {
    const answers = [...this.#pending.values()].map((p) => ({ id: p.id, error }));
    this.#pending.clear();
    return answers;
  }

  #response(message: IncomingResponse): ServiceVerdict {
    if (message.id === null) return { forward: true, answers: [] };
    const key = idKey(message.id);
    const pending = this.#pending.get(key);
    if (!pending) return { forward: false, answers: [], dropped: `response to ${key} is not awaited (already answered)` };
    this.#pending.delete(key);
    const ok = message.error === undefined;
    switch (pending.method) {
      case M.initialize: {
        if (this.#initialize) this.#initialize.answered = ok;
        const connectionId = ok ? readConnectionId(message.result) : undefined;
        if (connectionId !== undefined) this.identified(connectionId);
        break;
      }
      case M.session_new:
      case FORK: {
        const sessionId = ok ? readSessionId(message.result) : undefined;
        if (sessionId !== undefined) {
          const session = this.#upsert(sessionId);
          session.setup = pending.setup;
          session.attached = true;
        }
        break;
      }
      case M.session_load:
      case M.session_resume:
        if (pending.sessionId !== undefined) {
          const session = this.#upsert(pending.sessionId);
          session.fullReplay = false;
          if (ok) {
            session.attached = true;
            session.setup = pending.setup ?? session.setup;
          } else if (!session.attached) {
            this.#sessions.delete(pending.sessionId);
          }
        }
        break;
      case M.session_close:
      case M.session_delete:
        if (ok && pending.sessionId !== undefined) this.#sessions.delete(pending.sessionId);
        break;
    }
    return { forward: true, answers: [] };
  }

  #turnEnded({ sessionId, requestId, connectionId, outcome }: TurnEnded): ClientAnswer[] {
    if (requestId === null) return [];
    const key = idKey(requestId);
    const pending = this.#pending.get(key);
    if (!pending || pending.method !== M.session_prompt || pending.sessionId !== sessionId || !pending.sentOn) return [];
    // The same request id may belong to another client of the session; the
    // connection id tells whether this turn was started through this client.
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
    if (turn.lastRequestId == null || turn.lastConnectionId == null || !pending.sentOn) return false;
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
      session = { lastSeq: undefined, setup: undefined, attached: false, fullReplay: false };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }
}
