/**
 * Proxy-hosted upstreams from the session's side: two sessions on one proxy
 * connection use ONE upstream process at the same time. The proxy hands every
 * message of the process to both sessions (as the connection does); each
 * tunnel must take only its own. The "process" is the SDK fake agent.
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { UPSTREAM_MESSAGE } from "@hermes-edge/protocol";
import { describe, expect, it } from "vitest";
import { AcpUpstreamProvider } from "../../../src/agent/providers/acp-upstream-provider.js";
import type { UpdateLog } from "../../../src/session/update-log.js";
import { UpstreamTunnels } from "../../../src/session/upstream-tunnels.js";
import type { ToolContext } from "../../../src/tools/tool.js";
import { fakeUpstreamAgent } from "../../support/fake-upstream-agent.js";

const CAPS = { fs: { readTextFile: true }, _meta: { hermes: { upstreams: [{ id: "fake", name: "Fake" }] } } };

function fakeLog(sessionId: string, onSend: (connectionId: string, frame: string) => void, attached: [string, object][]): UpdateLog {
  return {
    attached: () => attached,
    isAttached: (id: string) => attached.some(([c]) => c === id),
    send: onSend,
    store: { record: () => ({ sessionId }) },
  } as unknown as UpdateLog;
}

describe("UpstreamTunnels", () => {
  it("offers acp:<id> for what attached connections declared, and nothing otherwise", () => {
    expect(new UpstreamTunnels(fakeLog("s", () => undefined, [["c1", CAPS]])).models()).toEqual(["acp:fake"]);
    expect(new UpstreamTunnels(fakeLog("s", () => undefined, [["c1", { fs: {} }]])).models()).toEqual([]);
    expect(new UpstreamTunnels(fakeLog("s", () => undefined, [["c1", { _meta: { hermes: { upstreams: [{ id: "bad id" }] } } }]])).models()).toEqual([]);
    expect(new UpstreamTunnels(fakeLog("s", () => undefined, [["c1", CAPS]])).endpoint("other", "c1")).toBeUndefined();
  });

  it("keeps two sessions' concurrent calls on one process apart", async () => {
    // The upstream process: one SDK agent connection, as the proxy's stdio would be.
    const toAgent = new TransformStream<AnyMessage, AnyMessage>();
    const fromAgent = new TransformStream<AnyMessage, AnyMessage>();
    fakeUpstreamAgent({ crash: () => undefined }).connect({ readable: toAgent.readable, writable: fromAgent.writable });
    const agentIn = toAgent.writable.getWriter();
    const tunnels: UpstreamTunnels[] = [];
    const sent: string[] = [];
    const proxySend = (connectionId: string, frame: string) => {
      const parsed = JSON.parse(frame) as { method: string; params: { upstreamId: string; message: AnyMessage } };
      expect(connectionId).toBe("c1");
      expect(parsed.method).toBe(UPSTREAM_MESSAGE);
      sent.push(JSON.stringify(parsed.params.message));
      void agentIn.write(parsed.params.message);
    };
    void (async () => {
      for await (const message of fromAgent.readable) for (const t of tunnels) t.receive("c1", { upstreamId: "fake", message: message as never });
    })();
    const providers = ["A", "B"].map((name) => {
      const tunnel = new UpstreamTunnels(fakeLog(`session-${name}`, proxySend, [["c1", CAPS]]));
      tunnels.push(tunnel);
      const endpoint = tunnel.endpoint("fake", "c1")!;
      const toolContext = (signal: AbortSignal) => ({ sessionId: `session-${name}`, cwd: "/w", additionalDirectories: [], signal, client: { capabilities: {}, request: async () => ({}) } }) as unknown as ToolContext;
      return new AcpUpstreamProvider(endpoint, { cwd: "/w", additionalDirectories: [], toolContext, editorCapabilities: () => ({}), timeoutMs: 5_000 });
    });
    const answer = async (provider: AcpUpstreamProvider, text: string) => {
      const gen = provider.stream({ model: "acp:fake", messages: [{ role: "user", content: text }], tools: [], signal: new AbortController().signal });
      let out = "";
      for (let next = await gen.next(); !next.done; next = await gen.next()) if (next.value.type === "text") out += next.value.text;
      return out;
    };
    const [a, b] = await Promise.all([answer(providers[0]!, "from A upstream:stream"), answer(providers[1]!, "from B, echo please")]);
    expect(a).toBe("Hello from the upstream.");
    expect(b).toMatch(/^echo: # User\n\nfrom B, echo please/);
    // Both sent initialize with the SDK's first id, rewritten apart on the wire.
    const initIds = sent.map((m) => JSON.parse(m) as { method?: string; id?: unknown }).filter((m) => m.method === "initialize").map((m) => m.id);
    expect(new Set(initIds).size).toBe(2);
    expect(initIds.every((id) => typeof id === "string" && /^session-[AB]~1~/.test(id))).toBe(true);
  });

  it("fails the tunnels of a connection that detaches", async () => {
    const tunnels = new UpstreamTunnels(fakeLog("s", () => undefined, [["c1", CAPS]]));
    const stream = await tunnels.endpoint("fake", null)!.open(new AbortController().signal);
    const reader = stream.readable.getReader();
    tunnels.detached("c1");
    await expect(reader.read()).rejects.toThrow("the proxy that runs it disconnected");
  });
});
