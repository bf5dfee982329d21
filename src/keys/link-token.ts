/**
 * Viewer link tokens: `hl_` + a public id part + `.` + 32 random bytes in
 * base64url, so a token is also a valid WebSocket subprotocol token. Only its
 * SHA-256 is stored; the id names the link in listings and revocations.
 * @module
 */

const TOKEN_PATTERN = /^hl_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/;
export const LINK_ID_PATTERN = /^lnk_[A-Za-z0-9_-]{16}$/;
/** A link works for 7 days unless `expiresIn` says otherwise. */
export const DEFAULT_LINK_SECONDS = 7 * 24 * 3600;

export function generateLink(): { id: string; token: string } {
  const idPart = base64url(crypto.getRandomValues(new Uint8Array(12)));
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { id: `lnk_${idPart}`, token: `hl_${idPart}.${secret}` };
}

export function looksLikeLinkToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
