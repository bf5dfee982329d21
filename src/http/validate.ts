/**
 * Request validation for REST routes: a body that is not JSON is -32700, one
 * that fails its schema (or a bad query) is -32602 with the zod issues in
 * `error.data`. Both answer HTTP 400.
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import { ErrorCode, httpError } from "./http-error.js";

/** Largest accepted REST body; admin bodies are a few hundred bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const tooLarge = () => httpError(ErrorCode.invalidRequest, `request body is larger than ${MAX_BODY_BYTES} bytes`, undefined, { status: 413 });
  // A declared length over the limit is refused before anything is read; the bytes read are counted too.
  if (Number(c.req.header("Content-Length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readAtMost(c.req.raw.body, MAX_BODY_BYTES);
  if (!bytes) throw tooLarge();
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

/**
 * The body's bytes, or null once it passes `limit`: reading stops there, so a
 * body sent without a length (chunked) costs at most the limit in memory.
 */
async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    length += read.value.byteLength;
    if (length > limit) {
      // Not awaited: the answer does not wait on the sender.
      void reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export function queryOf<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw httpError(ErrorCode.invalidParams, "invalid query", parsed.error.issues);
  return parsed.data;
}
