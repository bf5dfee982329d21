/**
 * Every Durable Object entry point runs through one of these, so a throwing
 * handler never leaves a caller without an answer, and what nobody expected
 * is logged with where it happened (class, method, session, connection).
 * Protocol errors (`RequestError`, a zod failure) are answers, not incidents.
 */
import { internalError, RequestError } from "@hermes-edge/protocol";
import { ZodError } from "zod";
import { outcomeOf, type RpcOutcome } from "./rpc-outcome.js";

export interface EntryContext {
  class: "SessionObject" | "ConnectionObject";
  method: string;
  sessionId?: string | undefined;
  connectionId?: string | undefined;
}

function isAnswer(err: unknown): boolean {
  return err instanceof RequestError || err instanceof ZodError;
}

function logUnexpected(where: EntryContext, err: unknown): void {
  if (!isAnswer(err)) console.error(`${where.class}.${where.method} failed`, where, err);
}

/** For methods that answer a client: the result, or the error body to send. */
export function answer<T>(where: EntryContext, fn: () => T | Promise<T>): Promise<RpcOutcome<T>> {
  return outcomeOf(async () => {
    try {
      return await fn();
    } catch (err) {
      if (isAnswer(err)) throw err;
      logUnexpected(where, err);
      // Logged here with its context; the caller learns nothing internal (a query's
      // error message, for one, carries its SQL and its parameters).
      throw internalError();
    }
  });
}

/** For methods with no error channel: `fallback` when the work throws. */
export async function guarded<T>(where: EntryContext, fallback: T, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    logUnexpected(where, err);
    return fallback;
  }
}
