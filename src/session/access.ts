/**
 * Who may do what with a session, decided in one place. A principal is a key's
 * user (null: the tenant's admin, a key or token without a user) or a viewer
 * link. A session has an owner (null when an admin key made it) and shares,
 * kept on its access root: itself for a root or a fork, the session that
 * spawned it for a sub-agent, so sub-agents follow their parent.
 * @module
 */
import { EVERYONE, sessionNotFound, readOnly, type AccessRole, type ShareRole } from "@hermes-edge/protocol";

/** Who is asking. */
export interface Principal {
  /** The key's user; null for the tenant's admin (and for a link). */
  user: string | null;
  /** A viewer link's id and the session it opens. */
  link?: { id: string; sessionId: string } | null;
}

export interface SessionAccessFacts {
  id: string;
  owner: string | null;
  /** Where its shares live: null means the session itself. */
  accessRoot: string | null;
  /** The shares on the access root. */
  shares: { user: string; role: ShareRole }[];
}

/**
 * - `read`: load, resume, watch, history, sub-agents, status, fork into one's own session.
 * - `drive`: prompt, cancel, modes and config options, titles, answer the agent's questions, sub-agent control.
 * - `manage`: share, unshare, archive, unarchive, delete, close for everyone.
 */
export type Action = "read" | "drive" | "manage";

const RANK: Record<AccessRole, number> = { viewer: 1, driver: 2, owner: 3, admin: 3 };
const NEEDS: Record<Action, number> = { read: 1, drive: 2, manage: 3 };

export function isAdmin(p: Principal): boolean {
  return p.user === null && !p.link;
}

export function accessRootOf(facts: Pick<SessionAccessFacts, "id" | "accessRoot">): string {
  return facts.accessRoot ?? facts.id;
}

/** The caller's role on the session, or null: the session is none of theirs (it answers as unknown). */
export function roleOf(p: Principal, facts: SessionAccessFacts): AccessRole | null {
  if (p.link) return accessRootOf(facts) === p.link.sessionId ? "viewer" : null;
  if (p.user === null) return "admin";
  if (facts.owner === p.user) return "owner";
  let best: ShareRole | null = null;
  for (const share of facts.shares) {
    if (share.user !== p.user && share.user !== EVERYONE) continue;
    if (best === null || RANK[share.role] > RANK[best]) best = share.role;
  }
  return best;
}

export function allows(role: AccessRole | null | undefined, action: Action): boolean {
  return role != null && RANK[role] >= NEEDS[action];
}

/** Whether the agent's questions (permission, elicitation, fs, terminal) may go to this role's connections. */
export function answers(role: AccessRole | null | undefined): boolean {
  return allows(role, "drive");
}

/**
 * The role if it allows `action`; otherwise the error the caller gets: the
 * unknown session's -32002 for no role at all, -32001 `read_only` for too little.
 */
export function requireAccess(role: AccessRole | null, action: Action, sessionId?: string): AccessRole {
  if (role === null) throw sessionNotFound(sessionId);
  if (!allows(role, action)) throw readOnly();
  return role;
}

/** Whether a new session (session/new) may be made by this principal: a link only watches. */
export function mayCreate(p: Principal): boolean {
  return !p.link;
}
