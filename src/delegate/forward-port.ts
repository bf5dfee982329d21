/**
 * A sub-agent's way to the editor. It has no connection of its own, so its
 * client port forwards every `fs/*`, `terminal/*` and permission request to
 * the parent session object, which asks over its own connection. Failures
 * cross RPC as plain data and are rebuilt on this side, so tools report them
 * the same way as in a root session.
 */
import { requestCancelled } from "@hermes-edge/protocol";
import { ClientRequestError } from "../session/client-requests.js";
import { ToolError, type ClientPort } from "../tools/tool.js";
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import type { ForwardedRequest, ForwardOutcome } from "./subagent-spec.js";

export function forwardingClientPort(
  capabilities: ClientCapabilities,
  forward: (request: ForwardedRequest) => Promise<ForwardOutcome>,
): ClientPort {
  return {
    capabilities,
    async request(method, params, options = {}) {
      const call = forward({ method, params, timeoutMs: options.timeoutMs, cancellable: options.signal !== undefined });
      const outcome = options.signal ? await untilAborted(call, options.signal) : await call;
      if (outcome.ok) return outcome.result;
      throw errorFromOutcome(outcome.error);
    },
  };
}

/** The parent's side: any failure of a forwarded request as data that survives RPC. */
export function forwardFailure(err: unknown): ForwardOutcome {
  if (err instanceof ClientRequestError) return { ok: false, error: { kind: "editor", body: err.body } };
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, error: { kind: err instanceof ToolError ? "tool" : "other", message } };
}

function errorFromOutcome(error: Extract<ForwardOutcome, { ok: false }>["error"]): Error {
  if (error.kind === "editor") return new ClientRequestError(error.body);
  return error.kind === "tool" ? new ToolError(error.message) : new Error(error.message);
}

/** The sub-agent stops waiting at once when its own signal aborts; the parent cancels its side too. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(requestCancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(requestCancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
