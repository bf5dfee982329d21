/** Who is calling a session object: the connection, its tenant and what its client can do. */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";

export interface ConnectionRef {
  connectionId: string;
  tenant: string;
  clientCapabilities: ClientCapabilities;
}
