/**
 * Proxy-hosted upstreams from the session's side: two sessions on one proxy
 * connection use ONE upstream process at the same time. The proxy hands every
 * message of the process to both sessions (as the connection does); each
 * tunnel must take only its own. The "process" is the SDK fake agent.
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { UPSTREAM_MESSAGE, type UpstreamMessage } from "@hermes-edge/protocol";
import { describe, expect, it, vi } from "vitest";
import { AcpUpstreamProvider } from "../../../src/agent/providers/acp-upstream-provider.js";
import type { UpdateLog } from "../../../src/session/update-log.js";
import { HELD_LIMIT, type TunnelMessage } from "../../../src/session/tunnel-route.js";
import { parentKey, UpstreamTunnels } from "../../../src/session/upstream-tunnels.js";
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

/** Tunnels with a fixed instance id, so the ids they write are known: `<session>~i.<call>~<sdk id>`. */
const tunnelsFor = (log: ConstructorParameters<typeof UpstreamTunnels>[0], graceMs?: number) => new UpstreamTunnels(log, graceMs, "i");

describe("UpstreamTunnels", () => {
  it("offers acp:<id> for what attached connections declared, and nothing otherwise", () => {
    expect(tunnelsFor(fakeLog("s", () => undefined, [["c1", CAPS]])).models()).toEqual(["acp:fake"]);
    expect(tunnelsFor(fakeLog("s", () => undefined, [["c1", { fs: {} }]])).models()).toEqual([]);
    expect(tunnelsFor(fakeLog("s", () => undefined, [["c1", { _meta: { hermes: { upstreams: [{ id: "bad id" }] } } }]])).models()).toEqual([]);
    expect(tunnelsFor(fakeLog("s", () => undefined, [["c1", CAPS]])).endpoint("other", "c1")).toBeUndefined();
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
      const tunnel = tunnelsFor(fakeLog(`session-${name}`, proxySend, [["c1", CAPS]]));
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
    expect(initIds.every((id) => typeof id === "string" && /^session-[AB]~i\.1~/.test(id))).toBe(true);
    // A finished call's route is gone: a late update of its upstream session reaches nothing and breaks nothing.
    const promptOfA = sent.map((m) => JSON.parse(m) as { id?: unknown; method?: string; params?: { sessionId?: string } }).find((m) => m.method === "session/prompt" && String(m.id).startsWith("session-A"));
    const late = { jsonrpc: "2.0", method: "session/update", params: { sessionId: promptOfA!.params!.sessionId!, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "late" } } } };
    expect(() => tunnels[0]!.receive("c1", { upstreamId: "fake", message: late as never })).not.toThrow();
  });

  it("writes ids a restarted session object's calls never share with the object it replaced", async () => {
    // The proxy remembers the ids it answered; the SDK numbers each call's requests from 0 again.
    const sent: TunnelMessage[] = [];
    const log = fakeLog("s", (_c, frame) => sent.push(wire(frame)), [["c1", CAPS]]);
    for (const tunnels of [new UpstreamTunnels(log), new UpstreamTunnels(log)]) {
      const { writer } = await open(tunnels);
      await writer.write({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    }
    const [before, after] = sent.map((m) => String(m["id"]));
    expect(before).toMatch(/^s~[0-9a-f]{8}\.1~0$/);
    expect(after).toMatch(/^s~[0-9a-f]{8}\.1~0$/);
    expect(after).not.toBe(before);
  });

  it("holds a call whose proxy disconnected and binds it to the connection that re-attaches: unanswered requests, then held messages, go out there", async () => {
    const sent: [string, TunnelMessage][] = [];
    const attached: [string, object][] = [["c1", CAPS]];
    const tunnels = tunnelsFor(fakeLog("s", (c, frame) => sent.push([c, wire(frame)]), attached));
    const { reader, writer } = await open(tunnels);
    await writer.write({ jsonrpc: "2.0", id: 0, method: "session/prompt", params: { sessionId: "up-1" } });
    attached.splice(0);
    tunnels.detached("c1");
    await writer.write({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "up-1" } });
    expect(sent.map(([c]) => c)).toEqual(["c1"]);
    attached.push(["c2", CAPS]);
    tunnels.attached("c2");
    expect(sent.slice(1)).toEqual([
      ["c2", { jsonrpc: "2.0", id: "s~i.1~0", method: "session/prompt", params: { sessionId: "up-1" } }],
      ["c2", { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "up-1" } }],
    ]);
    tunnels.receive("c1", { upstreamId: "fake", message: { jsonrpc: "2.0", id: "s~i.1~0", result: { stopReason: "stale" } } });
    tunnels.receive("c2", { upstreamId: "fake", message: { jsonrpc: "2.0", id: "s~i.1~0", result: { stopReason: "end_turn" } } });
    expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", id: 0, result: { stopReason: "end_turn" } });
  });

  it("binds a call to the connection that re-attaches when its own was let go of without a detach", async () => {
    const sent: string[] = [];
    const attached: [string, object][] = [["c1", CAPS]];
    const tunnels = tunnelsFor(fakeLog("s", (c) => sent.push(c), attached));
    const { writer } = await open(tunnels);
    await writer.write({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    attached.splice(0, 1, ["c2", CAPS]); // c1 is gone (its outbox found no socket); c2 attached
    tunnels.attached("c2");
    expect(sent).toEqual(["c1", "c2"]);
  });

  it("moves a call at once to another attached connection that declares the upstream", async () => {
    const sent: string[] = [];
    const attached: [string, object][] = [["c2", CAPS], ["c1", CAPS]];
    const tunnels = tunnelsFor(fakeLog("s", (c) => sent.push(c), attached));
    const { writer } = await open(tunnels, "c1");
    await writer.write({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    attached.splice(1);
    tunnels.detached("c1");
    expect(sent).toEqual(["c1", "c2"]);
  });

  it("keeps a call that opened an upstream session for its own proxy: another proxy's process does not know that session", async () => {
    const sent: [string, TunnelMessage][] = [];
    const attached: [string, object][] = [["c2", CAPS], ["c1", CAPS]];
    const tunnels = tunnelsFor(fakeLog("s", (c, frame) => sent.push([c, wire(frame)]), attached));
    const { writer } = await open(tunnels, "c1");
    await writer.write({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w" } });
    tunnels.receive("c1", { upstreamId: "fake", message: { jsonrpc: "2.0", id: "s~i.1~1", result: { sessionId: "up-1" } } });
    await writer.write({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "up-1", prompt: [] } });
    attached.splice(1);
    tunnels.detached("c1");
    expect(sent.map(([c]) => c)).toEqual(["c1", "c1"]); // nothing went to c2
    attached.push(["c1b", CAPS]); // the same proxy, reconnected
    tunnels.attached("c1b");
    expect(sent.slice(2)).toEqual([["c1b", { jsonrpc: "2.0", id: "s~i.1~2", method: "session/prompt", params: { sessionId: "up-1", prompt: [] } }]]);
  });

  it("fails a held call whose proxy has not come back within the grace period, answering its waiting requests with the cause", async () => {
    vi.useFakeTimers();
    try {
      const attached: [string, object][] = [["c1", CAPS]];
      const tunnels = tunnelsFor(fakeLog("s", () => undefined, attached), 2_000);
      const { reader, writer } = await open(tunnels);
      await writer.write({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: {} });
      attached.splice(0);
      tunnels.detached("c1");
      await vi.advanceTimersByTimeAsync(1_999);
      tunnels.attached("c9"); // not attached, declares nothing: stays held
      await vi.advanceTimersByTimeAsync(1);
      expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "the proxy that runs it disconnected and did not come back within 2 s" } });
      expect((await reader.read()).done).toBe(true);
      expect(() => tunnels.endpoint("fake", null)).not.toThrow();
    } finally {
      vi.useRealTimers();
    }
  });

  it("fails a call that held more messages than it may while the proxy reconnects", async () => {
    const attached: [string, object][] = [["c1", CAPS]];
    const tunnels = tunnelsFor(fakeLog("s", () => undefined, attached));
    const { reader, writer } = await open(tunnels);
    attached.splice(0);
    tunnels.detached("c1");
    for (let i = 0; i <= HELD_LIMIT; i += 1) void writer.write({ jsonrpc: "2.0", method: "session/update", params: {} }).catch(() => undefined);
    await expect(reader.read()).rejects.toThrow(`more than ${HELD_LIMIT} messages waited`);
  });

  it("relays a sub-agent's calls through the parent's connection and gives back only its answers and its upstream sessions' messages", async () => {
    const sent: [string, TunnelMessage][] = [];
    const tunnels = tunnelsFor(fakeLog("parent", (c, frame) => sent.push([c, wire(frame)]), [["c1", CAPS]]));
    const back: UpstreamMessage[] = [];
    const deliver = async (params: UpstreamMessage) => void back.push(params);
    const request = { jsonrpc: "2.0", id: "sub~1~1", method: "session/new", params: { cwd: "/w" } } as const;
    expect(tunnels.relay("sub", { upstreamId: "fake", message: request }, deliver)).toBe(true);
    expect(tunnels.relay("sub", { upstreamId: "other", message: request }, deliver)).toBe(false);
    expect(sent).toEqual([["c1", request]]);
    const from = (message: TunnelMessage) => tunnels.receive("c1", { upstreamId: "fake", message });
    from({ jsonrpc: "2.0", id: "someone~1~1", result: { sessionId: "up-theirs" } });
    from({ jsonrpc: "2.0", id: "sub~1~1", result: { sessionId: "up-sub" } });
    from({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "up-theirs" } });
    from({ jsonrpc: "2.0", id: 4, method: "fs/read_text_file", params: { sessionId: "up-sub", path: "/w/a" } });
    expect(back.map((p) => p.message)).toEqual([
      { jsonrpc: "2.0", id: "sub~1~1", result: { sessionId: "up-sub" } },
      { jsonrpc: "2.0", id: 4, method: "fs/read_text_file", params: { sessionId: "up-sub", path: "/w/a" } },
    ]);
    tunnels.forget("sub");
    from({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "up-sub" } });
    expect(back).toHaveLength(2);
  });

  it("lets a sub-agent reach the upstreams its parent lends it, through the parent, while its task runs", async () => {
    const tunnels = tunnelsFor(fakeLog("sub", () => undefined, []));
    expect(tunnels.models()).toEqual([]);
    const forwarded: UpstreamMessage[] = [];
    let reachable = true;
    tunnels.lend({ parentSessionId: "P", upstreams: [{ id: "fake", name: "Fake" }], forward: async (params) => (forwarded.push(params), reachable) });
    expect(tunnels.models()).toEqual(["acp:fake"]);
    const { reader, writer } = await open(tunnels);
    await writer.write({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    expect(forwarded).toEqual([{ upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub~i.1~0", method: "initialize", params: {} } }]);
    tunnels.receive("c1", { upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub~i.1~0", result: { from: "a connection" } } });
    tunnels.receive(parentKey("P"), { upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub~i.1~0", result: { from: "the parent" } } });
    expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", id: 0, result: { from: "the parent" } });
    reachable = false;
    await writer.write({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} });
    expect((await reader.read()).value).toMatchObject({ id: 1, error: { message: "its parent session can no longer reach the proxy that runs it" } });
    tunnels.lend(undefined);
    expect(tunnels.endpoint("fake", null)).toBeUndefined();
  });
});

const wire = (frame: string) => (JSON.parse(frame) as { params: UpstreamMessage }).params.message;

async function open(tunnels: UpstreamTunnels, preferred: string | null = null) {
  const stream = await tunnels.endpoint("fake", preferred)!.open(new AbortController().signal);
  return { reader: stream.readable.getReader(), writer: stream.writable.getWriter() };
}
