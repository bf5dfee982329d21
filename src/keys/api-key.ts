/**
 * Managed API keys: `he_` + 32 random bytes in base64url (43 characters), so a
 * key is also a valid WebSocket subprotocol token. Only the SHA-256 is stored;
 * comparisons of secrets go through fixed-length digests in constant time.
 * @module
 */

export const API_KEY_PREFIX = "he_";
const KEY_BYTES = 32;
const KEY_PATTERN = /^he_[A-Za-z0-9_-]{43}$/;

/** A new key, shown to its owner once and never stored in clear. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

/** A key id: public, safe to log and to show in listings (`key_` + 12 random bytes). */
export function generateKeyId(): string {
  return "key_" + base64url(crypto.getRandomValues(new Uint8Array(12)));
}

/** Whether a presented credential has the shape of a managed key (else it can only be a bootstrap token). */
export function looksLikeApiKey(token: string): boolean {
  return KEY_PATTERN.test(token);
}

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

export async function sha256Hex(text: string): Promise<string> {
  return [...(await sha256(text))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Compares two secrets without an early exit: both are hashed first, so the
 * time taken depends on neither their contents nor their lengths.
 */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256(a), sha256(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
