/**
 * ACP `logout` on a direct connection: the connection becomes unauthenticated.
 * Its sessions are let go (no more updates reach it) and every request but
 * `initialize`, `authenticate` and `logout` answers -32000 until the client
 * authenticates again. The WebSocket stays open: `authenticate` confirms the
 * credential it was opened with, checked again (see authenticate.ts).
 */
import { AGENT_METHODS, authRequired } from "@hermes-edge/protocol";
import type { Connection } from "./connection.js";
import type { ConnectionState } from "./connection-state.js";

const WITHOUT_LOGIN = new Set<string>([AGENT_METHODS.initialize, AGENT_METHODS.authenticate, AGENT_METHODS.logout]);

/** @throws RequestError -32000 when the connection logged out and `method` needs a login. */
export function requireLogin(method: string, state: ConnectionState | null): void {
  if (state?.loggedOut && !WITHOUT_LOGIN.has(method)) {
    throw authRequired(`logged out: call authenticate before "${method}"`);
  }
}

export async function logout(connection: Connection): Promise<void> {
  const state = connection.state.get()!;
  const connectionId = connection.ref().connectionId;
  await Promise.allSettled(state.sessions.map((id) => connection.session(id).detach(connectionId)));
  connection.state.update({ loggedOut: true, sessions: [] });
}
