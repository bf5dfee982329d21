/**
 * What the agent tells the client at `initialize`: capabilities and auth
 * methods. The protocol version is always 1: the client decides whether it
 * can speak it.
 * @module
 */
import type { AuthMethod, ClientCapabilities, InitializeResponse } from "@agentclientprotocol/sdk";
import type { McpCapabilities as UnstableMcpCapabilities, SessionCapabilities as UnstableSessionCapabilities } from "@agentclientprotocol/sdk/unstable";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

/** The bearer token the connection was opened with is the credential. */
export const TOKEN_AUTH_METHOD_ID = "hermes-edge-token";
/** Runs `hermes-edge-proxy --setup` in a terminal to save URL and token. */
export const SETUP_AUTH_METHOD_ID = "hermes-edge-setup";

export function authMethods(client: ClientCapabilities | undefined): AuthMethod[] {
  const methods: AuthMethod[] = [
    {
      id: TOKEN_AUTH_METHOD_ID,
      name: "hermes-edge token",
      description: "The token from HERMES_EDGE_TOKENS that the connection was opened with.",
    },
  ];
  // ACP: a terminal method may be offered only to clients that can run one.
  if (client?.auth?.terminal) {
    methods.push({
      type: "terminal",
      id: SETUP_AUTH_METHOD_ID,
      name: "Configure hermes-edge",
      description: "Asks for the service URL and token, checks them and saves them for this user.",
      args: ["--setup"],
    });
  }
  return methods;
}

/**
 * The `initialize` result. The service gives it; so does the proxy when it
 * has no token yet (first run, or after `logout`), so the editor learns the
 * auth methods, and the same capabilities as once it is configured.
 */
export function initializeResult(client: ClientCapabilities | undefined, agentInfo: { name: string; version: string }): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentInfo,
    agentCapabilities: {
      loadSession: true,
      // ACP `logout`: the connection (or, through the proxy, the saved token) is forgotten until `authenticate`.
      auth: { logout: {} },
      promptCapabilities: { image: true, embeddedContext: true },
      // `acp` (MCP over ACP) is unstable; the proxy turns the editor's stdio servers into such entries.
      mcpCapabilities: { http: true, sse: true, ...({ acp: true } satisfies UnstableMcpCapabilities) },
      // `fork`, `title`, `status` and `archive` are unstable ACP capabilities; stable clients ignore the extra keys.
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        delete: {},
        additionalDirectories: {},
        ...({ fork: {}, title: {}, status: {}, archive: {} } satisfies UnstableSessionCapabilities),
      },
    },
    authMethods: authMethods(client),
  };
}
