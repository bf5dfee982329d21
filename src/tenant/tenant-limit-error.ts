/**
 * The JSON-RPC error a turn gets when its tenant is over a limit:
 * -32003 "tenant limit reached: …" with `data: { limit, used, max, retryAfterSeconds? }`.
 * @module
 */
import { ErrorCode, RequestError } from "@hermes-edge/protocol";
import { describeRefusal, type LimitRefusal } from "./lease-book.js";

export function tenantLimitError(refusal: LimitRefusal): RequestError {
  return new RequestError(ErrorCode.tenantLimitReached, `tenant limit reached: ${describeRefusal(refusal)}`, refusal);
}
