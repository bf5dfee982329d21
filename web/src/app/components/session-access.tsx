/**
 * What the signed-in user is to a session, from `_meta.hermes.access`: a
 * "Shared with you" mark in the list, "Read only" for a viewer, and the
 * "Share" button for its owner (or the tenant's admin, whose list has no access field).
 * @module
 */
import type { SessionInfo } from "@agentclientprotocol/sdk";
import { readAccess, type AccessRole } from "@hermes-edge/protocol";

/** The caller's role; a listing without access (an admin key's) means admin. */
export function roleOf(info: SessionInfo | undefined): AccessRole {
  return readAccess(info?._meta)?.role ?? "admin";
}

export function isReadOnly(info: SessionInfo | undefined): boolean {
  return roleOf(info) === "viewer";
}

export function mayShare(info: SessionInfo | undefined): boolean {
  const role = roleOf(info);
  return role === "owner" || role === "admin";
}

export function SharedMark({ info }: { info: SessionInfo }) {
  const access = readAccess(info._meta);
  if (!access || access.role === "owner" || access.role === "admin") return null;
  return (
    <span class="pill pill-shared" title={access.owner ? `Shared by ${access.owner}` : "Shared with you"}>
      Shared with you
    </span>
  );
}

export function ReadOnlyMark() {
  return <span class="pill pill-readonly">Read only</span>;
}
