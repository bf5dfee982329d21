import { fromErrorResponse } from "@hermes-edge/protocol";
import type { RpcOutcome } from "../durable/rpc-outcome.js";

/** The result of a session RPC, or its error thrown (as the `RequestError` it was) for the dispatcher to send. */
export function unwrap<T>(outcome: RpcOutcome<T>, onError?: () => void): T {
  if (outcome.ok) return outcome.result;
  onError?.();
  throw fromErrorResponse(outcome.error);
}
