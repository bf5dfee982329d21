/**
 * What the page shows of a failure: words. The service ends an editor's
 * error it relays with the JSON-RPC code (`… is a directory [-32602]`), which
 * the model reads; a person gets the sentence without it. Pure.
 * @module
 */

/** JSON-RPC's reserved codes run from -32768 to -32000. */
const TRAILING_CODE = /\s*\[-32[0-7]\d\d\]$/;

export function withoutRpcCode(text: string): string {
  return text.replace(TRAILING_CODE, "");
}
