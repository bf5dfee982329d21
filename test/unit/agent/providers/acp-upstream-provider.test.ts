/**
 * The upstream provider against the fake upstream agent (official SDK agent
 * API) over in-memory streams: what the editor's side of the session sees.
 */
import { describe, expect, it, vi } from "vitest";
import { AcpUpstreamProvider, UpstreamUnavailable, type UpstreamEndpoint } from "../../../../src/agent/providers/acp-upstream-provider.js";
import type { ModelDelta, ModelRequest, ModelResult } from "../../../../src/agent/model-provider.js";
import type { ClientPort, GateRequest, ToolContext } from "../../../../src/tools/tool.js";
import { fakeUpstreamAgent, inMemoryUpstream } from "../../../support/fake-upstream-agent.js";

const CWD = "/home/dev/project";
const FILES: Record<string, string> = { [`${CWD}/notes.txt`]: "remember the milk", "/etc/passwd": "root:x:0:0", "/home/dev/secret.txt": "s3cret" };

function setup(options: { timeoutMs?: number; gate?: (r: GateRequest) => Promise<void>; open?: UpstreamEndpoint["open"] } = {}) {
  const events: { kind: string; [k: string]: unknown }[] = [];
  const editorRequests: { method: string; params: any }[] = [];
  const written: Record<string, string> = {};
  let crash = () => undefined as void;
  const client: ClientPort = {
    capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    async request(method, params: any) {
      editorRequests.push({ method, params });
      if (method === "fs/read_text_file") {
        if (params.path in FILES) return { content: FILES[params.path] };
        throw Object.assign(new Error("not found"), { body: { code: -32002, message: "Resource not found" } });
      }
      if (method === "fs/write_text_file") {
        written[params.path] = params.content;
        return {};
      }
      throw new Error(`unexpected ${method}`);
    },
  };
  const endpoint: UpstreamEndpoint = {
    id: "fake",
    name: "Fake Agent",
    open:
      options.open ??
      (async () => {
        const pair = inMemoryUpstream(fakeUpstreamAgent({ crash: () => crash(), record: (e) => events.push(e) }));
        crash = pair.crash;
        return pair.stream;
      }),
  };
  const toolContext = (signal: AbortSignal): ToolContext => ({
    sessionId: "hermes-session",
    tenant: "t",
    db: undefined as unknown as D1Database,
    cwd: CWD,
    additionalDirectories: [],
    toolCallId: "upstream-fs",
    signal,
    client,
    emit: () => undefined,
    ...(options.gate ? { gate: options.gate } : {}),
  });
  const provider = new AcpUpstreamProvider(endpoint, {
    cwd: CWD,
    additionalDirectories: [],
    toolContext,
    editorCapabilities: () => client.capabilities,
    timeoutMs: options.timeoutMs ?? 5_000,
  });
  return { provider, events, editorRequests, written };
}

async function run(provider: AcpUpstreamProvider, userText: string, init: Partial<ModelRequest> = {}) {
  const deltas: ModelDelta[] = [];
  const gen = provider.stream({ model: "acp:fake", messages: [{ role: "user", content: userText }], tools: [], signal: new AbortController().signal, ...init });
  for (;;) {
    const next = await gen.next();
    if (next.done) return { deltas, result: next.value as ModelResult, text: deltas.filter((d) => d.type === "text").map((d) => d.text).join("") };
    deltas.push(next.value);
  }
}

/**
 * An upstream that writes its last update and its answer to `session/prompt`
 * in one go, as an agent on stdio does in one write: both are in the stream
 * before the client reads either.
 */
function backToBackUpstream(): UpstreamEndpoint["open"] {
  return async () => {
    const toClient = new TransformStream<any, any>();
    const out = toClient.writable.getWriter();
    const writable = new WritableStream<any>({
      write(message) {
        if (message.method === "initialize") void out.write({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
        if (message.method === "session/new") void out.write({ jsonrpc: "2.0", id: message.id, result: { sessionId: "up-1" } });
        if (message.method === "session/prompt") {
          const chunk = (text: string) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "up-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
          void out.write(chunk("first, "));
          void out.write(chunk("last"));
          void out.write({ jsonrpc: "2.0", id: message.id, result: { stopReason: "end_turn" } });
        }
      },
    });
    return { readable: toClient.readable, writable };
  };
}

describe("AcpUpstreamProvider", () => {
  it("keeps the updates an upstream sends right before its answer", async () => {
    const { provider } = setup({ open: backToBackUpstream() });
    const { text, result } = await run(provider, "hi");
    expect(text).toBe("first, last");
    expect(result.finishReason).toBe("stop");
  });

  it("initializes with fs capabilities only, opens a session in the cwd and streams text and thoughts as deltas", async () => {
    const { provider, events } = setup();
    const { deltas, result, text } = await run(provider, "hi upstream:stream");
    expect(deltas[0]).toEqual({ type: "reasoning", text: "Thinking about it." });
    expect(deltas.filter((d) => d.type === "text").length).toBe(3);
    expect(text).toBe("Hello from the upstream.");
    expect(result).toEqual({ finishReason: "stop", toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } });
    expect(events[0]).toMatchObject({ kind: "initialize", clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
    expect(events[1]).toMatchObject({ kind: "session/new", cwd: CWD });
    // The call's session is closed at its end: a long-lived upstream does not pile them up.
    await vi.waitFor(() => expect(events.filter((e) => e.kind === "close")).toHaveLength(1));
  });

  it("sends the flattened transcript with the tool specs and reads a <tool_call> back", async () => {
    const { provider, events } = setup();
    const tools = [{ type: "function" as const, function: { name: "read_file", description: "Read a file.", parameters: { type: "object" } } }];
    const { result, text } = await run(provider, "go upstream:tool-call", { tools, messages: [{ role: "system", content: "SYS" }, { role: "user", content: "go upstream:tool-call" }] });
    expect(text).toBe("Let me read it.\n");
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([{ id: expect.stringMatching(/^acp_/), name: "read_file", arguments: JSON.stringify({ path: `${CWD}/notes.txt` }) }]);
    const prompt = events.find((e) => e.kind === "prompt")!.prompt as string;
    expect(prompt).toContain("# Instructions\n\nSYS");
    expect(prompt).toContain("## read_file");
    expect(prompt).toContain("<tool_call>");
  });

  it("falls back to a fenced JSON call, and leaves invalid JSON as text", async () => {
    const fenced = await run(setup().provider, "upstream:fenced");
    expect(fenced.result.toolCalls.map((c) => c.name)).toEqual(["read_file"]);
    expect(fenced.text).toBe("Reading.\n");
    const invalid = await run(setup().provider, "upstream:invalid");
    expect(invalid.result.toolCalls).toEqual([]);
    expect(invalid.text).toBe('Here: <tool_call>{"name": "read_file", arguments: oops}</tool_call> done.');
  });

  it("answers the upstream's permission request with its reject_once option", async () => {
    const { text } = await run(setup().provider, "upstream:permission");
    expect(text).toBe("permission answer: no");
  });

  it("serves fs reads inside the cwd through the editor and refuses paths outside", async () => {
    const { provider, editorRequests } = setup();
    const { text } = await run(provider, "upstream:fs");
    expect(text).toContain("inside: ok remember the milk");
    expect(text).toMatch(/outside: error -32602 .*only use files inside the session's workspace.*outside the workspace/);
    expect(text).toMatch(/escape: error -32602 .*escapes the workspace/);
    // Only the allowed read reached the editor, under the hermes session's id.
    expect(editorRequests).toEqual([{ method: "fs/read_text_file", params: { sessionId: "hermes-session", path: `${CWD}/notes.txt` } }]);
  });

  it("sends writes through the permission gate: allowed writes reach the editor, denied ones do not", async () => {
    const asked: GateRequest[] = [];
    const allowed = setup({ gate: async (r) => void asked.push(r) });
    expect((await run(allowed.provider, "upstream:fs-write")).text).toBe("write: ok ok");
    expect(allowed.written).toEqual({ [`${CWD}/out.txt`]: "from upstream\n" });
    expect(asked).toEqual([expect.objectContaining({ kind: "edit", paths: [`${CWD}/out.txt`] })]);
    const denied = setup({ gate: async () => { const { ToolError } = await import("../../../../src/tools/tool.js"); throw new ToolError("The user denied writing."); } });
    expect((await run(denied.provider, "upstream:fs-write")).text).toMatch(/write: error -32603 Writing .*out.txt was refused: The user denied writing/);
    expect(denied.written).toEqual({});
  });

  it("refuses terminal requests with -32601", async () => {
    const { text } = await run(setup().provider, "upstream:terminal");
    expect(text).toMatch(/^terminal: error -32601 /);
  });

  it("reports the upstream's usage_update", async () => {
    const { result } = await run(setup().provider, "upstream:usage");
    expect(result.usage).toEqual({ promptTokens: 1234, completionTokens: 0 });
  });

  it("sends session/cancel when the turn is cancelled mid-stream", async () => {
    const { provider, events } = setup();
    const controller = new AbortController();
    const gen = provider.stream({ model: "acp:fake", messages: [{ role: "user", content: "upstream:cancel" }], tools: [], signal: controller.signal });
    expect((await gen.next()).value).toEqual({ type: "text", text: "partial answer" });
    const rest = gen.next();
    controller.abort();
    await expect(rest).rejects.toBeDefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(events.filter((e) => e.kind === "cancel")).toHaveLength(1);
  });

  it("stops at once when the turn is cancelled while the upstream has not answered initialize", async () => {
    const silent = () => ({ readable: new ReadableStream(), writable: new WritableStream() });
    const { provider } = setup({ open: async () => silent() });
    const controller = new AbortController();
    const gen = provider.stream({ model: "acp:fake", messages: [{ role: "user", content: "hi" }], tools: [], signal: controller.signal });
    const started = Date.now();
    const next = gen.next();
    setTimeout(() => controller.abort(), 50);
    await expect(next).rejects.toBeDefined();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("fails with the upstream's name and the timeout when it stops answering", async () => {
    const { provider } = setup({ timeoutMs: 200 });
    await expect(run(provider, "upstream:hang")).rejects.toThrow(/upstream agent "Fake Agent" \(acp:fake\) failed: no answer within 200 ms \(HERMES_ACP_UPSTREAM_TIMEOUT_MS\)/);
  });

  it("fails clearly when the upstream crashes mid-answer", async () => {
    const { provider } = setup();
    await expect(run(provider, "upstream:crash")).rejects.toThrow(/upstream agent "Fake Agent" \(acp:fake\) failed: .*(crashed|closed)/);
  });

  it("fails clearly when the transport cannot be opened", async () => {
    const { provider } = setup({ open: async () => { throw new UpstreamUnavailable("wss://x/acp answered 401: the token was refused"); } });
    await expect(run(provider, "hi")).rejects.toThrow('upstream agent "Fake Agent" (acp:fake) failed: wss://x/acp answered 401: the token was refused');
  });
});
