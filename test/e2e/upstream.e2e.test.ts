/**
 * Upstream ACP agents as the model, end to end: `wrangler dev` with
 * `HERMES_ACP_UPSTREAMS` pointing at fake upstream agents (official SDK agent
 * API) served over WebSocket, and the official SDK client as the editor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstreamServer } from "../support/fake-upstream-server.js";
import { startMockOpenAI, type MockOpenAI } from "../support/mock-openai.js";
import { freePort, startDevServer, type DevServer } from "../support/wrangler-dev.js";
import { agentText, connectSdk, type SdkClient } from "./sdk-client.js";
import { e2eVars } from "./e2e-service.js";

const TOKEN = "tok-e2e-upstream";
const UPSTREAM_TOKEN = "upstream-secret";
const TIMEOUT_MS = 2_000;
let mock: MockOpenAI;
let upstream: FakeUpstreamServer;
let server: DevServer;
const clients: SdkClient[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI();
  upstream = await startFakeUpstream({ token: UPSTREAM_TOKEN });
  const closedPort = await freePort();
  server = await startDevServer({
    vars: {
      ...e2eVars(mock.url, TOKEN),
      HERMES_ACP_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      HERMES_ACP_UPSTREAMS: JSON.stringify([
        { id: "fake", name: "Fake Agent", url: upstream.url, token: UPSTREAM_TOKEN },
        { id: "badtoken", name: "Wrong Token", url: upstream.url, token: "nope" },
        { id: "gone", name: "Gone Agent", url: `ws://127.0.0.1:${closedPort}/acp` },
      ]),
    },
  });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.stop();
  await upstream?.close();
  await mock?.close();
});

const FILES = (cwd: string): Record<string, string> => ({ [`${cwd}/notes.txt`]: "remember the milk", "/etc/passwd": "root:x:0:0" });

async function session(model = "acp:fake", handlers: Parameters<typeof connectSdk>[2] = {}) {
  const cwd = `/home/dev/upstream-${crypto.randomUUID().slice(0, 8)}`;
  const reads: string[] = [];
  const c = await connectSdk(server.wsUrl, TOKEN, {
    readTextFile: (p: { path: string }) => {
      reads.push(p.path);
      const content = FILES(cwd)[p.path];
      if (content === undefined) throw Object.assign(new Error("not found"), { code: -32002 });
      return { content };
    },
    ...handlers,
  });
  clients.push(c);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
  const created = await c.agent.request("session/new", { cwd, mcpServers: [] });
  await c.agent.request("session/set_config_option", { sessionId: created.sessionId, configId: "model", value: model });
  const prompt = (text: string) => c.agent.request("session/prompt", { sessionId: created.sessionId, prompt: [{ type: "text", text }] });
  const text = () => agentText(c.updates, created.sessionId);
  const updates = () => c.updates.filter((u) => u.sessionId === created.sessionId).map((u) => u.update);
  return { c, cwd, sessionId: created.sessionId, created, prompt, text, updates, reads };
}

describe("remote upstream ACP agents (HERMES_ACP_UPSTREAMS)", () => {
  it("offers each upstream as an acp:<id> model beside the OpenAI-compatible ones, in the option and /model", async () => {
    const s = await session();
    const model = (s.created.configOptions ?? []).find((o) => o.id === "model") as { options: { value: string }[] };
    expect(model.options.map((o) => o.value)).toEqual(["mock-model", "acp:fake", "acp:badtoken", "acp:gone"]);
    await s.prompt("/model");
    expect(s.text()).toContain("Model: acp:fake.");
  });

  it("streams the upstream's thoughts and text as they arrive", async () => {
    const s = await session();
    const answer = await s.prompt("say hello upstream:stream");
    expect(answer.stopReason).toBe("end_turn");
    const kinds = s.updates().map((u) => u.sessionUpdate);
    expect(kinds).toContain("agent_thought_chunk");
    expect(s.text()).toBe("Hello from the upstream.");
    const init = upstream.events.filter((e) => e.kind === "initialize").at(-1);
    expect(init?.clientCapabilities).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: false });
    expect(upstream.events.filter((e) => e.kind === "session/new").at(-1)).toMatchObject({ cwd: s.cwd });
  });

  it("runs a <tool_call> block through hermes-edge's read_file, through the editor, and feeds the result back", async () => {
    const s = await session();
    await s.prompt("what is in notes.txt? upstream:tool-call");
    expect(s.reads).toEqual([`${s.cwd}/notes.txt`]);
    const call = s.updates().find((u) => u.sessionUpdate === "tool_call") as { title: string; kind: string } | undefined;
    expect(call).toMatchObject({ kind: "read" });
    expect(s.text()).toBe("Let me read it.\nThe file says: remember the milk");
    // The second model call saw the tool's result in its flattened prompt.
    const prompts = upstream.events.filter((e) => e.kind === "prompt").map((e) => e.prompt as string);
    expect(prompts.at(-1)).toMatch(/# Tool result: read_file \(acp_[^)]+\)\n\nremember the milk/);
    expect(prompts.at(-1)).toContain("## read_file");
  });

  it("falls back to a fenced JSON call and leaves invalid JSON as text", async () => {
    const fenced = await session();
    await fenced.prompt("upstream:fenced");
    expect(fenced.reads).toEqual([`${fenced.cwd}/notes.txt`]);
    expect(fenced.text()).toBe("Reading.\nFenced result: remember the milk");
    const invalid = await session();
    await invalid.prompt("upstream:invalid");
    expect(invalid.updates().some((u) => u.sessionUpdate === "tool_call")).toBe(false);
    expect(invalid.text()).toBe('Here: <tool_call>{"name": "read_file", arguments: oops}</tool_call> done.');
  });

  it("rejects the upstream's permission request without asking the editor", async () => {
    const asked: unknown[] = [];
    const s = await session("acp:fake", { permission: (p) => (asked.push(p), { outcome: { outcome: "selected", optionId: "allow_once" } }) });
    await s.prompt("upstream:permission");
    expect(s.text()).toBe("permission answer: no");
    expect(asked).toEqual([]);
  });

  it("serves its fs reads inside the cwd through the editor, refuses others, and refuses terminals with -32601", async () => {
    const s = await session();
    await s.prompt("upstream:fs");
    expect(s.text()).toContain("inside: ok remember the milk");
    expect(s.text()).toMatch(/outside: error -32602 .*outside the workspace/);
    expect(s.text()).toMatch(/escape: error -32602 .*escapes the workspace/);
    expect(s.reads).toEqual([`${s.cwd}/notes.txt`]);
    const t = await session();
    await t.prompt("upstream:terminal");
    expect(t.text()).toMatch(/^terminal: error -32601 /);
  });

  it("sends the upstream's fs writes through the permission gate to the editor", async () => {
    const writes: { path: string; content: string }[] = [];
    const asked: { toolCall: { title: string } }[] = [];
    let allow = true;
    const s = await session("acp:fake", {
      permission: (p) => (asked.push(p), { outcome: { outcome: "selected", optionId: allow ? "allow_once" : "reject" } }),
      writeTextFile: (p: { path: string; content: string }) => (writes.push({ path: p.path, content: p.content }), {}),
    });
    await s.prompt("upstream:fs-write");
    expect(s.text()).toBe("write: ok ok");
    expect(writes).toEqual([{ path: `${s.cwd}/out.txt`, content: "from upstream\n" }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall.title).toContain(`${s.cwd}/out.txt`);
    allow = false;
    await s.prompt("again upstream:fs-write");
    expect(s.text()).toMatch(/write: error -32603 Writing .*out\.txt was refused: The user denied/);
    expect(writes).toHaveLength(1);
  });

  it("sends session/cancel to the upstream when the editor cancels mid-stream", async () => {
    const s = await session();
    const answer = s.prompt("upstream:cancel");
    await expect.poll(() => s.text(), { timeout: 10_000 }).toContain("partial answer");
    await s.c.agent.notify("session/cancel", { sessionId: s.sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    await expect.poll(() => upstream.events.map((e) => e.kind).join(","), { timeout: 5_000 }).toContain("cancel");
  });

  it("fails clearly on a hang past HERMES_ACP_UPSTREAM_TIMEOUT_MS, and the session goes on with another model", async () => {
    const s = await session();
    const message = `upstream agent "Fake Agent" (acp:fake) failed: no answer within ${TIMEOUT_MS} ms (HERMES_ACP_UPSTREAM_TIMEOUT_MS)`;
    // The prompt's answer is the error, and the conversation says it too.
    await expect(s.prompt("upstream:hang")).rejects.toThrow(message);
    expect(s.text()).toContain(message);
    await s.c.agent.request("session/set_config_option", { sessionId: s.sessionId, configId: "model", value: "mock-model" });
    mock.setScript("e2e-upstream-after", [{ text: "back on the mock" }]);
    await s.prompt("again [[mock:e2e-upstream-after]]");
    expect(s.text()).toContain("back on the mock");
  });

  it("fails clearly when the upstream crashes, refuses the token, or cannot be reached", async () => {
    const crash = await session();
    await expect(crash.prompt("upstream:crash")).rejects.toThrow(/upstream agent "Fake Agent" \(acp:fake\) failed: the connection closed/);
    expect(crash.text()).toContain("about to crash");
    const badToken = await session("acp:badtoken");
    await expect(badToken.prompt("hello")).rejects.toThrow(
      `upstream agent "Wrong Token" (acp:badtoken) failed: ${upstream.url} answered HTTP 401 instead of a WebSocket: the token was refused`,
    );
    const gone = await session("acp:gone");
    await expect(gone.prompt("hello")).rejects.toThrow();
    expect(gone.text()).toMatch(/upstream agent "Gone Agent" \(acp:gone\) failed: ws:\/\/127\.0\.0\.1:\d+\/acp is unreachable/);
  });

  it("runs a sub-agent on an upstream model when delegate_task names one", async () => {
    const s = await session("mock-model");
    mock.setScript("e2e-upstream-delegate", [
      { toolCalls: [{ id: "d1", name: "delegate_task", arguments: { goal: "greet the user upstream:stream", model: "acp:fake" } }] },
      { text: "delegated." },
    ]);
    const before = upstream.events.filter((e) => e.kind === "prompt").length;
    await s.prompt("delegate it [[mock:e2e-upstream-delegate]]");
    const prompts = upstream.events.filter((e) => e.kind === "prompt").slice(before).map((e) => e.prompt as string);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("greet the user upstream:stream");
    // The parent model read the sub-agent's result, which is the upstream's answer.
    const toolResult = mock.calls("e2e-upstream-delegate")[1]!.body.messages.find((m) => m.role === "tool") as { content: string };
    expect(toolResult.content).toContain("Hello from the upstream.");
    expect(toolResult.content).toContain("acp:fake");
  });
});
