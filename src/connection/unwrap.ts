import type { RpcOutcome } from "../durable/rpc-outcome.js";

/** The result of a session RPC, or its error body thrown for the dispatcher to send. */
export function unwrap<T>(outcome: RpcOutcome<T>, onError?: () => void): T {
  if (outcome.ok) return outcome.result;
  onError?.();
  throw outcome.error;
}
