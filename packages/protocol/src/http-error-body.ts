/**
 * The service's HTTP error body, as every route answers a refusal
 * (src/http/http-error.ts): `{"error": {"code", "message", "data"?}}`. The
 * proxy and the browser client read its message to tell a person why.
 * @module
 */
import * as z from "zod";

export const zHttpErrorBody = z.looseObject({ error: z.looseObject({ message: z.string() }) });

/** The error's message when `text` is such a body; undefined for anything else (a proxy's HTML page, plain text). */
export function httpErrorMessage(text: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = zHttpErrorBody.safeParse(json);
  return parsed.success ? parsed.data.error.message : undefined;
}
