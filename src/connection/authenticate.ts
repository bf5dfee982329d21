/**
 * ACP `authenticate` on a direct connection: confirms the credential the
 * connection was opened with, and ends a `logout`. The Worker checked that
 * credential at the upgrade, but a managed key may have been revoked (or have
 * expired) since, and the connection's alarm notices only every 30 s: so the
 * key is read from D1 again here, and one no longer active is refused at once
 * (-32000) with the connection left as it was. Bootstrap tokens come from the
 * Worker's configuration, which no running connection outlives.
 */
import type { AuthenticateRequest, AuthenticateResponse } from "@agentclientprotocol/sdk";
import { authRequired } from "@hermes-edge/protocol";
import { TOKEN_AUTH_METHOD_ID } from "../acp/capabilities.js";
import type { Connection } from "./connection.js";

export async function authenticate(params: AuthenticateRequest, connection: Connection): Promise<AuthenticateResponse> {
  if (params.methodId !== TOKEN_AUTH_METHOD_ID) {
    throw authRequired(`unknown authentication method "${params.methodId}"; use "${TOKEN_AUTH_METHOD_ID}"`);
  }
  const status = await connection.keyStatus();
  if (status !== "active") throw authRequired(`key ${status} since this connection opened: connect again with an active key`);
  if (connection.state.get()?.loggedOut) connection.state.update({ loggedOut: false });
  return {};
}
