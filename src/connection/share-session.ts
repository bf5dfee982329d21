/**
 * Sharing a session, for `_hermes/session/share|unshare` and the REST routes
 * alike: the share is written to D1, then the session object gives the
 * connections of that user their new role, or lets them go (an unshared
 * user's open connections are detached at once, not at their next request).
 * The caller has already checked that the principal may manage the session.
 */
import { invalidParams, type Share, type ShareRole } from "@hermes-edge/protocol";
import type { SessionRow } from "../../schema/sessions.js";
import type { SessionShareRow } from "../../schema/session-shares.js";
import { SessionIndex } from "../db/session-index.js";
import { MAX_SHARES, ShareStore } from "../db/share-store.js";
import type { SessionRpc } from "../session/session-rpc.js";

export interface SharePorts {
  db: D1Database;
  session(sessionId: string): DurableObjectStub<SessionRpc>;
  now: number;
}

export function shareView(row: SessionShareRow): Share {
  return { user: row.user, role: row.role, createdAt: new Date(row.createdAt).toISOString() };
}

export async function shareSession(ports: SharePorts, row: SessionRow, user: string, role: ShareRole): Promise<Share[]> {
  if (row.kind === "subagent") throw invalidParams([{ path: ["sessionId"], message: "a sub-agent follows its parent's shares: share the parent session" }]);
  if (user === row.owner) throw invalidParams([{ path: ["user"], message: "that user owns the session" }]);
  const store = new ShareStore(ports.db);
  const before = await store.list(row.tenant, row.id);
  if (before.length >= MAX_SHARES && !before.some((s) => s.user === user)) {
    throw invalidParams([{ path: ["user"], message: `a session is shared with at most ${MAX_SHARES} entries` }]);
  }
  await store.put(row.tenant, row.id, user, role, ports.now);
  return reshare(ports, row, user, store);
}

export async function unshareSession(ports: SharePorts, row: SessionRow, user: string): Promise<Share[]> {
  const store = new ShareStore(ports.db);
  await store.remove(row.tenant, row.id, user);
  return reshare(ports, row, user, store);
}

async function reshare(ports: SharePorts, row: SessionRow, user: string, store: ShareStore): Promise<Share[]> {
  const shares = await store.list(row.tenant, row.id);
  const plain = shares.map((s) => ({ user: s.user, role: s.role }));
  // The session and its sub-agent sessions (which follow its shares), breadth first, up to a bound.
  const index = new SessionIndex(ports.db);
  const queue = [row.id];
  for (let i = 0; i < queue.length && i < MAX_RESHARED; i++) {
    const id = queue[i]!;
    await ports.session(id).reshare(row.tenant, user, plain);
    if (queue.length < MAX_RESHARED) queue.push(...(await index.children(row.tenant, id)).map((c) => c.id));
  }
  return shares.map(shareView);
}

/** Sessions told of one share change: a session and its sub-agents (ten per call, a few levels deep). */
const MAX_RESHARED = 200;
