/**
 * MCP servers from npm, end to end: `@modelcontextprotocol/server-everything`
 * in streamableHttp mode on a local port, reached by the service as an `http`
 * server (`HERMES_ALLOW_PRIVATE_MCP=1`); the same package and
 * `@modelcontextprotocol/server-filesystem` as the editor's stdio servers, run
 * by the built proxy and reached over MCP-over-ACP, with an MCP SDK server
 * that gains a tool while idle (`test/support/late-tools-mcp-stdio.ts`).
 * Process lifetimes are checked by pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MockOpenAI } from "../support/mock-openai.js";
import { freePort, type DevServer } from "../support/wrangler-dev.js";
import { ensureProxyBuilt, isolatedEnv, REPO_ROOT, startEditor, type Editor } from "./proxy-editor.js";
import { agentText, connectSdk, type SdkClient } from "./sdk-client.js";
import { SHARED_MCP_CALL_TIMEOUT_MS, useE2eService } from "./e2e-service.js";
import { bundledScript } from "../support/bundled-script.js";
import { scratchDir } from "../support/scratch-dir.js";

const TOKEN = "tok-mcp-e2e";
// The shared server's (HERMES_MCP_CALL_TIMEOUT_MS, with HERMES_ALLOW_PRIVATE_MCP=1 for server-everything on
// loopback): short, as the progress tests run in seconds; every other call here answers at once.
const CALL_TIMEOUT_MS = SHARED_MCP_CALL_TIMEOUT_MS;
const e2e = useE2eService(TOKEN);
const EVERYTHING = join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = join(REPO_ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const LATE_TOOLS = bundledScript("test/support/late-tools-mcp-stdio.ts");
const BIG_TOOLS = join(REPO_ROOT, "test/support/big-tools-mcp-stdio.mjs");

let mock: MockOpenAI;
let server: DevServer;
let everythingHttp: ChildProcess;
let everythingSse: ChildProcess;
let everythingUrl: string;
let everythingSseUrl: string;
const editors: Editor[] = [];
const clients: SdkClient[] = [];

beforeAll(async () => {
  ensureProxyBuilt();
  mock = e2e.mock;
  server = e2e.server;
  const [httpPort, ssePort] = [await freePort(), await freePort()];
  everythingHttp = await startEverything("streamableHttp", httpPort);
  everythingSse = await startEverything("sse", ssePort);
  everythingUrl = `http://127.0.0.1:${httpPort}/mcp`;
  everythingSseUrl = `http://127.0.0.1:${ssePort}/sse`;
}, 180_000);

/** server-everything in one of its HTTP modes on `port`, once it listens. */
async function startEverything(mode: "streamableHttp" | "sse", port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything (${mode}) did not start`)), 20_000);
    const onData = (chunk: Buffer) => /listening|running/i.test(String(chunk)) && (clearTimeout(timer), resolve());
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });
  return child;
}

afterEach(async () => {
  for (const e of editors.splice(0)) await e.kill();
  for (const c of clients.splice(0)) await c.close();
});

afterAll(() => {
  everythingHttp?.kill("SIGKILL");
  everythingSse?.kill("SIGKILL");
});

/** A real folder: the proxy starts stdio servers in the session's cwd on this machine. */
const cwdFor = (name: string) => scratchDir(`hermes-mcp-${name}-`);
const toolMessages = (key: string, call: number) =>
  Object.fromEntries(mock.calls(key)[call]!.body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
const offered = (key: string, call = 0) => ((mock.calls(key)[call]!.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const toolCall = (updates: { update: any }[], id: string) => updates.map((u) => u.update).filter((u) => u.toolCallId === id);

/** The pids of `pid`'s child processes (the MCP servers a proxy runs). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function editor(): Editor {
  const e = startEditor(["--url", server.wsUrl, "--token", TOKEN, "--log-level", "debug"], isolatedEnv());
  editors.push(e);
  return e;
}

const stdio = (name: string, args: string[], command = process.execPath) => ({ name, command, args, env: [] });

describe("an http MCP server reached by the service", () => {
  it("offers server-everything's tools, and the model's echo call returns through the service", async () => {
    const c = await connectSdk(server.wsUrl, TOKEN);
    clients.push(c);
    const init = await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true, acp: true });
    mock.setScript("e2e-mcp-http", [{ toolCalls: [{ id: "e1", name: "mcp__everything__echo", arguments: { message: "over http" } }] }, { text: "done" }]);
    const servers = [{ type: "http", name: "everything", url: everythingUrl, headers: [{ name: "X-Hermes-Test", value: "1" }] }];
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("http"), mcpServers: servers as never });
    const answer = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo [[mock:e2e-mcp-http]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(offered("e2e-mcp-http")).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum"]));
    expect(toolMessages("e2e-mcp-http", 1)).toEqual({ e1: "Echo: over http" });
    expect(toolCall(c.updates, "e1")[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "read", title: expect.stringMatching(/^everything: /) });
    expect(toolCall(c.updates, "e1").at(-1)).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "Echo: over http" } }] });
    expect(c.validator.errors).toEqual([]);
  });

  it("reaches an sse server too", async () => {
    const c = await connectSdk(server.wsUrl, TOKEN);
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    mock.setScript("e2e-mcp-sse", [{ toolCalls: [{ id: "e2", name: "mcp__old__get-sum", arguments: { a: 2, b: 3 } }] }, { text: "done" }]);
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("sse"), mcpServers: [{ type: "sse", name: "old", url: everythingSseUrl, headers: [] }] as never });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sum [[mock:e2e-mcp-sse]]" }] });
    expect(toolMessages("e2e-mcp-sse", 1).e2).toMatch(/\b5\b/);
  });

  it("keeps an http call alive past the call timeout while the server reports progress", async () => {
    const c = await connectSdk(server.wsUrl, TOKEN);
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    // 5 s with progress every 0.5 s; the timeout is 2 s.
    mock.setScript("e2e-mcp-http-progress", [{ toolCalls: [{ id: "h1", name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 5, steps: 10 } }] }, { text: "done" }]);
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("http-progress"), mcpServers: [{ type: "http", name: "everything", url: everythingUrl, headers: [] }] as never });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it [[mock:e2e-mcp-http-progress]]" }] });
    expect(toolMessages("e2e-mcp-http-progress", 1)).toEqual({ h1: "Long running operation completed. Duration: 5 seconds, Steps: 10." });
  });

  it("offers a tool left out for a name another connection's server had, once that connection goes (http servers list only once)", async () => {
    const servers = [{ type: "http", name: "everything", url: everythingUrl, headers: [] }];
    const first = await connectSdk(server.wsUrl, TOKEN);
    const second = await connectSdk(server.wsUrl, TOKEN);
    clients.push(first, second);
    for (const c of [first, second]) await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await first.agent.request("session/new", { cwd: cwdFor("shared"), mcpServers: servers as never });
    await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/mcp" }] });
    await second.agent.request("session/load", { sessionId, cwd: cwdFor("shared"), mcpServers: servers as never });
    // The second editor's server lists the same tools: they stay the first's, and the second editor is told.
    await until(() => /MCP server "everything" \(http\): .*(left out[^;]*mcp__everything__echo|mcp__everything__echo is left out)/.test(agentText(second.updates, sessionId)), "the notice");
    expect(agentText(second.updates, sessionId)).toMatch(/mcp__everything__echo is left out while a server of another editor connection offers a tool of that name/);
    await first.close();
    const mcpReport = async () => {
      const before = agentText(second.updates, sessionId).length;
      await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/mcp" }] });
      return agentText(second.updates, sessionId).slice(before);
    };
    let report = await mcpReport();
    for (let i = 0; i < 50 && (report.match(/\*\*everything\*\*/g) ?? []).length > 1; i++) report = await mcpReport();
    expect(report).toMatch(/- \*\*everything\*\* \(http\): ready, [1-9]\d* tools/);
    mock.setScript("e2e-mcp-shared", [{ toolCalls: [{ id: "s1", name: "mcp__everything__echo", arguments: { message: "second editor" } }] }, { text: "done" }]);
    await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo [[mock:e2e-mcp-shared]]" }] });
    expect(offered("e2e-mcp-shared")).toContain("mcp__everything__echo");
    expect(toolMessages("e2e-mcp-shared", 1)).toEqual({ s1: "Echo: second editor" });
  });
});

describe("the editor's stdio servers, run by the proxy", () => {
  it("rewrites them into acp entries, reaches server-everything and server-filesystem, and stops them when the session closes", async () => {
    const folder = scratchDir("hermes-mcp-fs-");
    writeFileSync(join(folder, "notes.txt"), "the answer is 42\n");
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    mock.setScript("e2e-mcp-stdio", [
      {
        toolCalls: [
          { id: "s1", name: "mcp__everything__echo", arguments: { message: "over stdio" } },
          { id: "s2", name: "mcp__files__read_text_file", arguments: { path: join(folder, "notes.txt") } },
        ],
      },
      { text: "done" },
    ]);
    const { sessionId } = await e.agent.request("session/new", {
      cwd: folder,
      mcpServers: [stdio("everything", [EVERYTHING, "stdio"]), stdio("files", [FILESYSTEM, folder])] as never,
    });
    await until(() => childrenOf(e.child.pid!).length === 2, "two MCP server processes");
    const pids = childrenOf(e.child.pid!);
    const answer = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read [[mock:e2e-mcp-stdio]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(toolMessages("e2e-mcp-stdio", 1)).toEqual({ s1: "Echo: over stdio", s2: "the answer is 42\n" });
    expect(toolCall(e.updates, "s2")[0]).toMatchObject({ kind: "read", title: "files: Read Text File" });
    expect(e.garbage).toEqual([]);
    expect(e.validator.errors).toEqual([]);
    expect(e.stderr()).toMatch(/MCP server "files" started/);

    await e.agent.request("session/close", { sessionId });
    // Every process the proxy started for the session ends (polled: on a loaded machine a child may take a moment to go).
    await until(() => pids.every((pid) => !alive(pid)) && childrenOf(e.child.pid!).length === 0, "the servers to stop after session/close");
  });

  it("keeps a call alive past the call timeout while the server reports progress, on the service and in the proxy, and fails a silent one naming the timeout", async () => {
    const e = startEditor(["--url", server.wsUrl, "--token", TOKEN], isolatedEnv({ HERMES_EDGE_PROXY_TEST_MCP_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS) }));
    editors.push(e);
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const long = (id: string, duration: number, steps: number) => ({ toolCalls: [{ id, name: "mcp__everything__trigger-long-running-operation", arguments: { duration, steps } }] });
    // 5 s with progress every 0.5 s, then 3 s without any: the timeout is 2 s on both sides.
    mock.setScript("e2e-mcp-progress", [long("p1", 5, 10), long("p2", 3, 1), { text: "done" }]);
    const { sessionId } = await e.agent.request("session/new", { cwd: cwdFor("progress"), mcpServers: [stdio("everything", [EVERYTHING, "stdio"])] as never });
    const answer = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it [[mock:e2e-mcp-progress]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(toolMessages("e2e-mcp-progress", 1)).toEqual({ p1: "Long running operation completed. Duration: 5 seconds, Steps: 10." });
    expect(toolMessages("e2e-mcp-progress", 2).p2).toMatch(/^Error: MCP server "everything" stopped responding: .*no answer or progress to tools\/call within 2 s/);
    expect(e.garbage).toEqual([]);
    expect(e.validator.errors).toEqual([]);
  });

  it("tells the user which server's tool list is too large for a frame, and by how much", async () => {
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const env = [{ name: "BIG_TOOLS_COUNT", value: "45" }, { name: "BIG_TOOLS_BYTES", value: "100000" }];
    const { sessionId } = await e.agent.request("session/new", { cwd: cwdFor("big-list"), mcpServers: [{ ...stdio("huge", [BIG_TOOLS]), env }] as never });
    const notice = () => agentText(e.updates, sessionId);
    // 4.5 MB of tool list made, relayed and measured: on a loaded machine that took over 8 s.
    await until(() => /MCP server "huge"/.test(notice()), "the notice", 30_000);
    expect(notice()).toMatch(/MCP server "huge" \(acp\): unavailable: .*its tool list is too large: 4,50\d,\d{3} bytes, 3\d\d,\d{3} more than fits in one frame of the service's default 4,194,304-byte limit \(HERMES_MAX_FRAME_BYTES\)/);
    expect(e.garbage).toEqual([]);
    expect(e.validator.errors).toEqual([]);
  });

  it("keeps the servers across a reconnect and declares them again when it re-attaches", async () => {
    // Frame 4 from the service is its first mcp/message (tools/list): the socket drops right after it.
    const e = startEditor(["--url", server.wsUrl, "--token", TOKEN, "--log-level", "debug"], isolatedEnv({ HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES: "4" }));
    editors.push(e);
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    mock.setScript("e2e-mcp-reconnect", [{ toolCalls: [{ id: "r1", name: "mcp__everything__echo", arguments: { message: "after the drop" } }] }, { text: "done" }]);
    const { sessionId } = await e.agent.request("session/new", { cwd: cwdFor("reconnect"), mcpServers: [stdio("everything", [EVERYTHING, "stdio"])] as never });
    await until(() => /re-attached 1 session/.test(e.stderr()), "the proxy to re-attach the session", 30_000);
    const [pid] = childrenOf(e.child.pid!);
    const answer = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo [[mock:e2e-mcp-reconnect]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(toolMessages("e2e-mcp-reconnect", 1)).toEqual({ r1: "Echo: after the drop" });
    expect(childrenOf(e.child.pid!)).toEqual([pid]);
  });

  it("stops every server when the proxy exits", async () => {
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await e.agent.request("session/new", { cwd: cwdFor("exit"), mcpServers: [stdio("everything", [EVERYTHING, "stdio"])] as never });
    await until(() => childrenOf(e.child.pid!).length === 1, "the MCP server process");
    const [pid] = childrenOf(e.child.pid!);
    expect(await e.quit()).toBe(0);
    await until(() => !alive(pid!), "the server to stop after the proxy exited");
  });

  it("tells the user about a command that does not exist, and the session works without it", async () => {
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    mock.setScript("e2e-mcp-ghost", [{ text: "fine without it" }]);
    const { sessionId } = await e.agent.request("session/new", { cwd: cwdFor("ghost"), mcpServers: [stdio("ghost", [], "/nonexistent/mcp-ghost")] as never });
    const notice = () => e.updates.some((u) => u.update.sessionUpdate === "agent_message_chunk" && /MCP server "ghost"/.test((u.update as any).content.text));
    await until(notice, "the notice about the ghost server");
    const text = e.updates.map((u) => (u.update as any).content?.text ?? "").join("");
    expect(text).toMatch(/MCP server "ghost" \(acp\): unavailable: .*could not start `\/nonexistent\/mcp-ghost`.*ENOENT/);
    const answer = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi [[mock:e2e-mcp-ghost]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(offered("e2e-mcp-ghost").some((n) => n.startsWith("mcp__"))).toBe(false);
  });

  it("starts a server that exited again once, at the next turn's list; after a second exit its calls fail with a clear message", async () => {
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const echo = (id: string, message: string) => ({ toolCalls: [{ id, name: "mcp__everything__echo", arguments: { message } }] });
    mock.setScript("e2e-mcp-dies", [echo("d1", "one"), { text: "first" }, echo("d2", "two"), { text: "second" }, echo("d3", "three"), { text: "third" }]);
    const { sessionId } = await e.agent.request("session/new", { cwd: cwdFor("dies"), mcpServers: [stdio("everything", [EVERYTHING, "stdio"])] as never });
    await until(() => childrenOf(e.child.pid!).length === 1, "the MCP server process");
    // Its tools are listed before the first prompt runs; then the process dies.
    await until(() => /mcp\/message|started/.test(e.stderr()), "the server to start");
    await new Promise((r) => setTimeout(r, 1_000));
    const kill = async (times: number) => {
      process.kill(childrenOf(e.child.pid!)[0]!, "SIGKILL");
      await until(() => e.stderr().split('MCP server "everything" exited').length - 1 === times, "the proxy to see the exit");
    };
    await kill(1);
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo [[mock:e2e-mcp-dies]]" }] });
    expect(toolMessages("e2e-mcp-dies", 1).d1).toBe("Echo: one");
    expect(e.stderr()).toMatch(/MCP server "everything" stopped \(the process exited\); starting it again/);
    expect(childrenOf(e.child.pid!)).toHaveLength(1);
    await kill(2);
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(toolMessages("e2e-mcp-dies", 3).d2).toMatch(/^Error: MCP server "everything" stopped responding: .*process.*It will be reconnected once/);
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and again" }] });
    expect(toolMessages("e2e-mcp-dies", 5).d3).toMatch(/^Error: MCP server "everything" is unavailable: reconnecting failed \(.*process/);
    expect(childrenOf(e.child.pid!)).toHaveLength(0);
  });

  it("offers the tools a server added while idle at the next turn, though it listed none when the session started", async () => {
    const folder = cwdFor("late");
    const flag = join(folder, "enable");
    const e = editor();
    await e.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    mock.setScript("e2e-mcp-late", [{ text: "nothing yet" }, { toolCalls: [{ id: "h1", name: "mcp__late__hello", arguments: {} }] }, { text: "done" }]);
    const late = { name: "late", command: process.execPath, args: [LATE_TOOLS], env: [{ name: "LATE_TOOLS_FLAG", value: flag }, { name: "LATE_TOOLS_LOGS", value: "50" }] };
    const { sessionId } = await e.agent.request("session/new", { cwd: folder, mcpServers: [late] as never });
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi [[mock:e2e-mcp-late]]" }] });
    expect(offered("e2e-mcp-late").some((n) => n.startsWith("mcp__"))).toBe(false);
    // Nothing is asked of the server now: what it sends waits in the proxy.
    writeFileSync(flag, "");
    await until(() => /late tools enabled/.test(e.stderr()), "the server to enable its tool");
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(offered("e2e-mcp-late", 1)).toContain("mcp__late__hello");
    expect(toolMessages("e2e-mcp-late", 2)).toEqual({ h1: "hello from a late tool" });
    expect(e.validator.errors).toEqual([]);
  });
});
