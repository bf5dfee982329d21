/**
 * Request validation for REST routes: a body that is not JSON is -32700, one
 * that fails its schema (or a bad query) is -32602 with the zod issues in
 * `error.data`. Both answer HTTP 400.
 * @module
 */
import type { Context } from "hono";
import type * as z from "zod";
import { readBounded } from "../bounded-read.js";
import { ErrorCode } from "@hermes-edge/protocol";
import { httpError } from "./http-error.js";

/** Largest accepted REST body; admin bodies are a few hundred bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const tooLarge = () => httpError(ErrorCode.invalidRequest, `request body is larger than ${MAX_BODY_BYTES} bytes`, undefined, { status: 413 });
  // A declared length over the limit is refused before anything is read; the bytes read are counted too.
  if (Number(c.req.header("Content-Length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  // Read only up to the bound: a body sent without a length costs at most that.
  const { bytes, truncated } = await readBounded(c.req.raw.body, MAX_BODY_BYTES);
  if (truncated) throw tooLarge();
  const text = new TextDecoder().decode(bytes);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw httpError(ErrorCode.parseError, "request body is not JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw httpError(ErrorCode.invalidParams, "invalid body", parsed.error.issues);
  return parsed.data;
}

export function queryOf<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw httpError(ErrorCode.invalidParams, "invalid query", parsed.error.issues);
  return parsed.data;
}
