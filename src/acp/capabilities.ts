/**
 * What the agent tells the client at `initialize` (`@hermes-edge/protocol`'s
 * `initializeResult`, which the proxy gives too before it has a token), with
 * the service's name and version.
 */
import type { ClientCapabilities, InitializeResponse } from "@agentclientprotocol/sdk";
import { initializeResult as sharedInitializeResult } from "@hermes-edge/protocol";
import pkg from "../../package.json";

export { authMethods, SETUP_AUTH_METHOD_ID, TOKEN_AUTH_METHOD_ID } from "@hermes-edge/protocol";

export const AGENT_NAME = "hermes-edge";
export const AGENT_VERSION: string = pkg.version;

export function initializeResult(client: ClientCapabilities | undefined): InitializeResponse {
  return sharedInitializeResult(client, { name: AGENT_NAME, version: AGENT_VERSION });
}
