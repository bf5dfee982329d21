/**
 * ACP `logout` on a direct connection: the connection becomes unauthenticated.
 * Its sessions are let go (no more updates reach it) and every request but
 * `initialize`, `authenticate` and `logout` answers -32000 until the client
 * authenticates again. The WebSocket stays open: the bearer token checked at
 * the upgrade is what `authenticate` confirms.
 */
import { AGENT_METHODS, authRequired } from "@hermes-edge/protocol";
import type { ConnectionPorts } from "./connection-ports.js";
import type { ConnectionState } from "./connection-state.js";

const WITHOUT_LOGIN = new Set<string>([AGENT_METHODS.initialize, AGENT_METHODS.authenticate, AGENT_METHODS.logout]);

/** @throws RequestError -32000 when the connection logged out and `method` needs a login. */
export function requireLogin(method: string, state: ConnectionState | null): void {
  if (state?.loggedOut && !WITHOUT_LOGIN.has(method)) {
    throw authRequired(`logged out: call authenticate before "${method}"`);
  }
}

export async function logout(ports: ConnectionPorts): Promise<void> {
  const state = ports.state.get()!;
  const connectionId = ports.ref().connectionId;
  await Promise.allSettled(state.sessions.map((id) => ports.session(id).detach(connectionId)));
  ports.state.update({ loggedOut: true, sessions: [] });
}
