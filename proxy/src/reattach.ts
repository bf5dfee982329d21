/**
 * What happens after a reconnect, before the editor's queued requests go out:
 * replay the editor's `initialize` under the proxy's own id, then
 * `session/resume` every session with `_meta.hermes.afterSeq`, so the service
 * replays exactly the frames this proxy has not forwarded yet. Prompts the
 * service turns out never to have received come back as `resend`.
 * @module
 */
import { ErrorCode } from "./jsonrpc.js";
import type { Logger } from "./log.js";
import { readInitializeResult, reattachParams } from "./protocol.js";
import type { ProxyResponse } from "./proxy-requests.js";
import type { EditorAnswer, Resend, SessionTracker } from "./session-tracker.js";

export interface ReattachPorts {
  /** Sends one of the proxy's own requests and waits for its response. */
  request(method: string, params: unknown): Promise<ProxyResponse>;
  /** Writes answers to the editor. */
  answer(answers: readonly EditorAnswer[]): void;
  readonly log: Logger;
  /** The cwd assumed for sessions whose cwd the proxy never saw. */
  readonly cwd: string;
}

/**
 * `resend`: prompts to send again on the new connection, ahead of the queued
 * requests. Present on failure too: the tracker no longer counts them as sent,
 * so they must wait in the outbox for the next connection.
 */
export type ReattachResult =
  | { readonly ok: true; readonly sessions: number; readonly resend: readonly Resend[] }
  | { readonly ok: false; readonly reason: string; readonly resend: readonly Resend[] };

export async function reattach(tracker: SessionTracker, ports: ReattachPorts): Promise<ReattachResult> {
  const replay = tracker.initializeToReplay;
  // The editor's own initialize is still unanswered (or was never sent): it
  // waits in the outbox and goes out first, so there is nothing to replay.
  if (!replay) return { ok: true, sessions: 0, resend: [] };

  const init = await ports.request("initialize", replay.params);
  if (init.kind === "lost") return { ok: false, reason: `replayed initialize got no answer (${init.reason})`, resend: [] };
  if (init.kind === "error") return { ok: false, reason: `the service refused the replayed initialize: ${init.error.message}`, resend: [] };
  const info = readInitializeResult(init.result);

  const targets = tracker.reattachTargets();
  if (targets.length === 0) return { ok: true, sessions: 0, resend: [] };
  const method = info?.canResume ? "session/resume" : info?.canLoad ? "session/load" : undefined;
  if (!method) {
    const error = {
      code: ErrorCode.internalError,
      message: "After reconnecting, the service advertises neither sessionCapabilities.resume nor loadSession, so the session cannot be re-attached.",
    };
    for (const target of targets) ports.answer(tracker.reattached(target.sessionId, { ok: false, error }).answers);
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
