/**
 * What a client does after a reconnect, before its queued requests go out:
 * replay its `initialize` under its own id, then `session/resume` (or
 * `session/load`) every session with `_meta.hermes.afterSeq`, so the service
 * replays exactly the frames the client has not seen yet. Prompts the service
 * turns out never to have received come back as `resend`.
 * @module
 */
import { AGENT_METHODS, type ErrorResponse } from "@agentclientprotocol/sdk";
import { readConnectionId } from "./hermes-meta.js";
import { readInitializeResult } from "./initialize-info.js";
import type { ReconnectTracker } from "./reconnect-tracker.js";
import { reattachParams } from "./session-setup.js";
import { cannotReattach } from "./tracker-errors.js";
import type { ClientAnswer, Resend } from "./tracker-types.js";

/** The answer to one of the client's own requests to the service. */
export type ServiceResponse =
  | { readonly kind: "result"; readonly result: unknown }
  /** The service answered with a JSON-RPC error. */
  | { readonly kind: "error"; readonly error: ErrorResponse }
  /** No answer: the socket closed or the request timed out. Says nothing about the session. */
  | { readonly kind: "lost"; readonly reason: string };

export interface ReattachPorts {
  /** Sends one of the client's own requests (an id its application never uses) and waits for its response. */
  request(method: string, params: unknown): Promise<ServiceResponse>;
  /** Writes answers to the application (the editor, the page). */
  answer(answers: readonly ClientAnswer[]): void;
  readonly log: { debug(message: string): void; info(message: string): void; warn(message: string): void };
  /** The cwd assumed for sessions whose cwd was never seen. */
  readonly cwd: string;
}

/**
 * `resend`: prompts to send again on the new connection, ahead of the queued
 * requests. Present on failure too: the tracker no longer counts them as sent,
 * so they must wait for the next connection.
 */
export type ReattachResult =
  | { readonly ok: true; readonly sessions: number; readonly resend: readonly Resend[] }
  | { readonly ok: false; readonly reason: string; readonly resend: readonly Resend[] };

export async function reattach(tracker: ReconnectTracker, ports: ReattachPorts): Promise<ReattachResult> {
  const replay = tracker.initializeToReplay;
  // The client's own initialize is still unanswered (or was never sent): it
  // waits in the queue and goes out first, so there is nothing to replay.
  if (!replay) return { ok: true, sessions: 0, resend: [] };

  const init = await ports.request(AGENT_METHODS.initialize, replay.params);
  if (init.kind === "lost") return { ok: false, reason: `replayed initialize got no answer (${init.reason})`, resend: [] };
  if (init.kind === "error") return { ok: false, reason: `the service refused the replayed initialize: ${init.error.message}`, resend: [] };
  const info = readInitializeResult(init.result);
  const connectionId = readConnectionId(init.result);
  if (connectionId !== undefined) tracker.identified(connectionId);

  const targets = tracker.reattachTargets();
  if (targets.length === 0) return { ok: true, sessions: 0, resend: [] };
  const method = info?.canResume ? AGENT_METHODS.session_resume : info?.canLoad ? AGENT_METHODS.session_load : undefined;
  if (!method) {
    for (const target of targets) ports.answer(tracker.reattached(target.sessionId, { ok: false, error: cannotReattach() }).answers);
    return { ok: true, sessions: 0, resend: [] };
  }

  let lost: string | undefined;
  let attached = 0;
  const resend: Resend[] = [];
  await Promise.all(
    targets.map(async (target) => {
      const response = await ports.request(method, reattachParams(target.sessionId, target.setup, target.afterSeq, ports.cwd));
      if (response.kind === "lost") {
        // Leave the tracker as it is: the next connection tries again.
        lost ??= `${method} for ${target.sessionId} got no answer (${response.reason})`;
        return;
      }
      if (response.kind === "error") {
        ports.log.warn(`session ${target.sessionId} could not be re-attached: ${response.error.message}`);
        ports.answer(tracker.reattached(target.sessionId, { ok: false, error: response.error }).answers);
        return;
      }
      attached += 1;
      ports.log.debug(`re-attached session ${target.sessionId} after seq ${target.afterSeq}`);
      const decision = tracker.reattached(target.sessionId, { ok: true, result: response.result });
      ports.answer(decision.answers);
      for (const prompt of decision.resend) {
        ports.log.info(`session ${target.sessionId}: the service never received prompt ${JSON.stringify(prompt.id)} (lost with the old connection); sending it again`);
      }
      resend.push(...decision.resend);
    }),
  );
  return lost !== undefined ? { ok: false, reason: lost, resend } : { ok: true, sessions: attached, resend };
}
