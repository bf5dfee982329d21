/**
 * What crosses Durable Object RPC for a JSON-RPC call: a result or an error
 * body. Class instances do not survive RPC, so errors travel as plain bodies
 * and `unwrap` turns them back into a `RequestError` on the other side.
 */
import { toErrorResponse, type ErrorResponse } from "@hermes-edge/protocol";

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: ErrorResponse };

export async function outcomeOf<T>(fn: () => T | Promise<T>): Promise<RpcOutcome<T>> {
  try {
    return { ok: true, result: await fn() };
  } catch (err) {
    return { ok: false, error: toErrorResponse(err) };
  }
}
