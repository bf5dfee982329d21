/** Who is calling a session object: the connection, its tenant and user, and what its client can do. */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import type { AccessRole } from "@hermes-edge/protocol";

export interface ConnectionRef {
  connectionId: string;
  tenant: string;
  clientCapabilities: ClientCapabilities;
  /** The key's user; absent or null for the tenant's admin (and a viewer link). */
  user?: string | null;
  /** A viewer link's id, when the connection was opened with one. */
  linkId?: string | null;
  /**
   * The caller's role on the session called, as the connection resolved it
   * (src/session/access.ts); absent means the tenant's admin, as before users.
   */
  role?: AccessRole;
  /**
   * The connection's socket closed after this request came, and the session has let the connection go
   * (or soon will): the request is still the client's, checked against `role`, which the connection
   * resolved for it, instead of the attachment.
   */
  closed?: true;
}
