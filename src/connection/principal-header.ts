/**
 * Who the Worker authenticated, handed to the connection object beside the
 * tenant: `{user, link}` as JSON in an internal header (clients never reach
 * the object directly, and the Worker overwrites whatever a client sent).
 * @module
 */
import type { Principal } from "../session/access.js";

export const PRINCIPAL_HEADER = "X-Hermes-Principal";

export function principalHeader(principal: Principal): string {
  return JSON.stringify({ user: principal.user, link: principal.link ?? null });
}

/** The header as the Worker wrote it; a malformed one is refused rather than read as the tenant's admin. */
export function principalOf(raw: string | null): Principal {
  const parsed = JSON.parse(raw ?? "null") as Principal | null;
  if (!parsed || typeof parsed !== "object") throw new Error("malformed principal header");
  return { user: parsed.user ?? null, link: parsed.link ?? null };
}
