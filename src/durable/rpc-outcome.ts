/**
 * What crosses Durable Object RPC for a JSON-RPC call: a result or an error
 * body. Class instances do not survive RPC, so errors travel as plain bodies.
 */
import { toJsonRpcError, type JsonRpcErrorBody } from "../acp/errors.js";

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: JsonRpcErrorBody };

export async function outcomeOf<T>(fn: () => T | Promise<T>): Promise<RpcOutcome<T>> {
  try {
    return { ok: true, result: await fn() };
  } catch (err) {
    return { ok: false, error: toJsonRpcError(err) };
  }
}
