/**
 * What the sign-in form makes of what was pasted. A managed key (`he_…`) or a
 * bare token goes as it is; a `tenant:token` pair copied from `.dev.vars`
 * gives its token (the service looks a key up by the token alone). Anything a
 * WebSocket cannot carry as a subprotocol is refused with what to paste, and
 * the text is never repeated back: it may be a secret. Pure.
 * @module
 */

export type KeyReading = { readonly ok: true; readonly key: string } | { readonly ok: false; readonly message: string };

/** A tenant name (and optionally `/user`) as HERMES_EDGE_TOKENS takes it: letters, digits and `. _ @ -`. */
const PAIR = /^[A-Za-z0-9._@-]{1,64}(?:\/[A-Za-z0-9._@-]{1,64})?:(.+)$/;
/** RFC 7230 token characters: what a WebSocket subprotocol, and so the key, may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const WHAT_TO_PASTE = "Paste a managed key (it starts with he_; make one with npm run keys -- create) or, from HERMES_EDGE_TOKENS, the token after the colon.";

export function readServiceKey(input: string): KeyReading {
  const text = input.trim().replace(/^Bearer\s+/i, "");
  if (!text) return { ok: false, message: "Enter a service key." };
  if (text.includes(",")) return { ok: false, message: `That looks like a list of keys: sign in with one. ${WHAT_TO_PASTE}` };
  const key = PAIR.exec(text)?.[1]?.trim() ?? text;
  if (!TOKEN.test(key)) return { ok: false, message: `That is not a service key: it holds spaces or signs a key never has. ${WHAT_TO_PASTE}` };
  return { ok: true, key };
}
