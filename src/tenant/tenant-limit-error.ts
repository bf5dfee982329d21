/**
 * The JSON-RPC error a turn gets when its tenant is over a limit:
 * -32003 "tenant limit reached: …" with `data: { limit, used, max, retryAfterSeconds? }`.
 * @module
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { describeRefusal, type LimitRefusal } from "./lease-book.js";

export const TENANT_LIMIT_REACHED = -32003;

export function tenantLimitError(refusal: LimitRefusal): RequestError {
  return new RequestError(TENANT_LIMIT_REACHED, `tenant limit reached: ${describeRefusal(refusal)}`, refusal);
}
