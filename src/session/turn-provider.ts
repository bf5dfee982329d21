/**
 * Which provider a turn's model calls go to: `acp:<id>` models to that
 * upstream ACP agent (remote over WebSocket, or run by the proxy and reached
 * through its connection), everything else to the OpenAI-compatible provider.
 */
import { AcpUpstreamProvider, type UpstreamEndpoint } from "../agent/providers/acp-upstream-provider.js";
import { upstreamIdOf, type UpstreamSettings } from "../agent/providers/upstream-config.js";
import type { UpstreamToolContext } from "../agent/providers/upstream-editor.js";
import { openWebSocketStream } from "../agent/providers/websocket-transport.js";
import { ProviderError, type ModelProvider } from "../agent/model-provider.js";
import type { ClientPort } from "../tools/tool.js";

/** Finds a proxy-hosted upstream declared by an attached connection (see `upstream-tunnel.ts`). */
export type HostedUpstreams = (id: string, preferredConnection: string | null) => UpstreamEndpoint | undefined;

export interface UpstreamPorts {
  settings: UpstreamSettings;
  hosted?: HostedUpstreams;
}

export function providerForTurn(
  ports: { provider: ModelProvider | null; upstreams?: UpstreamPorts | undefined },
  record: { model: string; cwd: string; additionalDirectories: string[] },
  turn: { client: ClientPort; connectionId: string | null; toolContext: UpstreamToolContext },
): ModelProvider | null {
  const id = upstreamIdOf(record.model);
  if (id === null) return ports.provider;
  const endpoint = ports.upstreams && endpointFor(ports.upstreams, id, turn.connectionId);
  if (!endpoint) return unavailable(`the upstream agent acp:${id} is not configured here, or the proxy that runs it is not connected; choose another model with /model`);
  return new AcpUpstreamProvider(endpoint, {
    cwd: record.cwd,
    additionalDirectories: record.additionalDirectories,
    toolContext: turn.toolContext,
    editorCapabilities: () => turn.client.capabilities,
    timeoutMs: ports.upstreams!.settings.timeoutMs,
  });
}

function endpointFor(upstreams: UpstreamPorts, id: string, connectionId: string | null): UpstreamEndpoint | undefined {
  const remote = upstreams.settings.remote.find((u) => u.id === id);
  if (remote) return { id, name: remote.name, open: () => openWebSocketStream(remote) };
  return upstreams.hosted?.(id, connectionId);
}

function unavailable(message: string): ModelProvider {
  return {
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new ProviderError(message, undefined, false);
    },
  };
}
