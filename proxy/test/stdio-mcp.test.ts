/**
 * The proxy's stdio MCP host against the fake service: stdio entries become
 * `acp` ones and run here (server-everything from npm), the editor's own
 * `acp` entries and their `mcp/message` requests pass through untouched.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv, WAIT_MS } from "./proxy-process.js";
import { bundledScript } from "../../test/support/bundled-script.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

const fx = useFakeService();
const FILESYSTEM = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const LATE_TOOLS = bundledScript("test/support/late-tools-mcp-stdio.ts");
const BIG_TOOLS = fileURLToPath(new URL("../../test/support/big-tools-mcp-stdio.mjs", import.meta.url));

describe("stdio MCP servers", () => {
  it("runs stdio entries as acp servers and passes the editor's acp entries through", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const editorServer = { type: "acp", name: "editor-tools", serverId: "editor-1" };
    const stdio = { name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] };
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [editorServer, stdio] });

    const declared = fx.service.receivedMethods("session/new")[0]!.message["params"] as { mcpServers: { serverId: string }[] };
    expect(declared.mcpServers).toEqual([editorServer, { type: "acp", name: "everything", serverId: "hermes-proxy-stdio-1" }]);

    const listed = await fx.service.requestClient("m1", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r1", method: "tools/list", params: {} });
    const tools = ((listed["result"] as { result: { tools: { name: string }[] } }).result.tools).map((t) => t.name);
    expect(tools).toContain("echo");
    const called = await fx.service.requestClient("m2", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r2", method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } });
    expect(called["result"]).toEqual({ result: { content: [{ type: "text", text: "Echo: hi" }] } });
    const unknownTool = await fx.service.requestClient("m3", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r3", method: "tools/call", params: { name: "nope", arguments: {} } });
    expect(JSON.stringify(unknownTool["result"])).toMatch(/nope/);

    // The editor's own server: the request reaches the editor, as any agent→client request does.
    void fx.service.requestClient("m4", "mcp/message", { serverId: "editor-1", requestId: "r4", method: "tools/list" });
    const atEditor = await p.waitFor((m) => m.method === "mcp/message", WAIT_MS, "the editor's mcp/message");
    expect(atEditor["params"]).toEqual({ serverId: "editor-1", requestId: "r4", method: "tools/list" });
    expect(p.stderr).toMatch(/MCP server "everything" started/);
    expect(p.garbage).toEqual([]);
  });

  it("stops the servers of a session/load the service refuses, and of a deleted session", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const stdio = { name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] };
    const gone = async (serverId: string, n: string) => {
      const answer = await fx.service.requestClient(`gone-${n}`, "mcp/message", { serverId, requestId: "r", method: "tools/list" });
      return (answer["error"] as { message?: string } | undefined)?.message ?? "";
    };
    expect((await p.request("session/load", { sessionId: "no-such-session", cwd: process.cwd(), mcpServers: [stdio] }))["error"]).toBeDefined();
    expect(await gone("hermes-proxy-stdio-1", "1")).toMatch(/no MCP server hermes-proxy-stdio-1 runs in this proxy/);

    const created = await p.request("session/new", { cwd: process.cwd(), mcpServers: [stdio] });
    const { sessionId } = created["result"] as { sessionId: string };
    const listed = await fx.service.requestClient("alive", "mcp/message", { serverId: "hermes-proxy-stdio-2", requestId: "r", method: "tools/list" });
    expect(listed["result"]).toBeDefined();
    await p.request("session/delete", { sessionId });
    expect(await gone("hermes-proxy-stdio-2", "2")).toMatch(/no MCP server hermes-proxy-stdio-2 runs in this proxy/);
  });

  it("stops a tool call the service cancels ($/cancel_request), answers it cancelled, and keeps the cancel from the editor", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] }] });
    await fx.service.requestClient("list", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r0", method: "tools/list" });
    const started = Date.now();
    const call = fx.service.requestClient("long", "mcp/message", {
      serverId: "hermes-proxy-stdio-1",
      requestId: "r1",
      method: "tools/call",
      params: { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 30 } },
    });
    await new Promise((r) => setTimeout(r, 300));
    fx.service.notifyClient("$/cancel_request", { requestId: "long" });
    const answer = await call;
    expect(answer["error"]).toMatchObject({ code: -32800 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(p.messages.some((m) => m.method === "$/cancel_request")).toBe(false);
  });

  it("keeps a tool call that reports progress alive past the call timeout, passes the progress on under the service's token, and stops a silent one", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token", HERMES_EDGE_PROXY_TEST_MCP_CALL_TIMEOUT_MS: "1000" }));
    await p.request("initialize", INIT_PARAMS);
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] }] });
    await fx.service.requestClient("list", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r0", method: "tools/list" });
    const longCall = (id: string, requestId: string, duration: number, steps: number) =>
      fx.service.requestClient(id, "mcp/message", {
        serverId: "hermes-proxy-stdio-1",
        requestId,
        method: "tools/call",
        params: { name: "trigger-long-running-operation", arguments: { duration, steps }, _meta: { progressToken: `token-${requestId}` } },
      });
    // 3 s in all, progress every 0.5 s: three times the 1 s timeout.
    const reported = await longCall("long", "r1", 3, 6);
    expect(reported["result"]).toEqual({ result: { content: [{ type: "text", text: "Long running operation completed. Duration: 3 seconds, Steps: 6." }] } });
    const progress = fx.service.received.filter((r) => r.message["method"] === "mcp/message" && (r.message["params"] as { method: string }).method === "notifications/progress");
    // The last one may be missing: the MCP SDK client handles notifications a microtask late, so one
    // written just before the result comes after it, when its request is over (the result carries on).
    const expected = [1, 2, 3, 4, 5, 6].map((n) => ({ serverId: "hermes-proxy-stdio-1", requestId: "r1", method: "notifications/progress", params: { progress: n, total: 6, progressToken: "token-r1" } }));
    const got = progress.map((r) => r.message["params"]);
    expect(got.length).toBeGreaterThanOrEqual(5);
    expect(got).toEqual(expected.slice(0, got.length));
    // 2 s without a word.
    const silent = await longCall("silent", "r2", 2, 1);
    expect(silent["error"]).toEqual({ code: -33002, message: 'MCP server "everything": no answer or progress to tools/call within 1 s, so it was stopped' });
  });

  it("sends a server's notifications for a request it is answering, never for one that ended", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] }] });
    const notices = () => fx.service.received.filter((r) => r.message["method"] === "mcp/message" && r.message["id"] === undefined).map((r) => r.message["params"] as { requestId: string; method: string });
    // The tool logs once at once (during its call), then every 5 s while nothing is asked of the server.
    await fx.service.requestClient("on", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "log-on", method: "tools/call", params: { name: "toggle-simulated-logging", arguments: {} } });
    const duringCall = notices().length;
    // What it sent before any request (its startup list_changed) waited for this one too.
    expect(notices().map((n) => n.requestId)).toEqual(notices().map(() => "log-on"));
    expect(notices().map((n) => n.method)).toContain("notifications/message");
    await new Promise((r) => setTimeout(r, 5_500));
    expect(notices()).toHaveLength(duringCall);
    await fx.service.requestClient("next", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r-next", method: "tools/list" });
    const later = notices().slice(duringCall);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((n) => n.requestId === "r-next")).toBe(true);
  });

  it("keeps an idle server's list_changed through its logging, for the server's next request", async () => {
    const flag = join(scratchDir("hermes-late-tools-"), "enable");
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const env = [{ name: "LATE_TOOLS_FLAG", value: flag }, { name: "LATE_TOOLS_LOGS", value: "100" }];
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [{ name: "late", command: process.execPath, args: [LATE_TOOLS], env }] });
    const list = async (requestId: string) => {
      const answer = await fx.service.requestClient(requestId, "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId, method: "tools/list" });
      return (answer["result"] as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    };
    expect(await list("at-attach")).toEqual([]);
    // While the server answers nothing it enables its tool (list_changed) and logs 100 times.
    writeFileSync(flag, "");
    for (let i = 0; i < 200 && !/late tools enabled/.test(p.stderr); i++) await new Promise((r) => setTimeout(r, 50));
    expect(p.stderr).toMatch(/late tools enabled/);
    expect(await list("next")).toEqual(["hello"]);
    const carried = fx.service.received.filter((r) => r.message["method"] === "mcp/message" && r.message["id"] === undefined).map((r) => r.message["params"] as { requestId: string; method: string });
    expect(carried.every((n) => n.requestId === "next")).toBe(true);
    expect(carried.filter((n) => n.method === "notifications/tools/list_changed")).toHaveLength(1);
    expect(carried.length).toBeLessThanOrEqual(32);
  });

  it("refuses a tool list too large to relay with an error naming the server and the excess, and relays one that fits", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const big = (name: string, count: number) => ({ name, command: process.execPath, args: [BIG_TOOLS], env: [{ name: "BIG_TOOLS_COUNT", value: String(count) }, { name: "BIG_TOOLS_BYTES", value: "100000" }] });
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [big("huge", 45), big("fits", 2)] });
    const list = (serverId: string) => fx.service.requestClient(`list-${serverId}`, "mcp/message", { serverId, requestId: `r-${serverId}`, method: "tools/list" });
    const huge = await list("hermes-proxy-stdio-1");
    expect(huge["error"]).toEqual({
      code: -33002,
      message: expect.stringMatching(/^MCP server "huge": its tool list is too large: 4,50\d,\d{3} bytes, 3\d\d,\d{3} more than fits in one frame of the service's default 4,194,304-byte limit \(HERMES_MAX_FRAME_BYTES\)$/),
    });
    const fits = await list("hermes-proxy-stdio-2");
    expect((fits["result"] as { result: { tools: unknown[] } }).result.tools).toHaveLength(2);
  });

  it("starts none of the servers of a setup that declares more than the service accepts", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const mcpServers = Array.from({ length: 33 }, (_, i) => ({ name: `ghost-${i}`, command: "/nonexistent/ghost", args: [], env: [] }));
    await p.request("session/new", { cwd: process.cwd(), mcpServers });
    const declared = fx.service.receivedMethods("session/new")[0]!.message["params"] as { mcpServers: unknown[] };
    expect(declared.mcpServers).toEqual(mcpServers);
    expect(p.stderr).not.toMatch(/ghost/);
  });

  it("answers for a command that does not exist with a binding error", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [{ name: "ghost", command: "/nonexistent/ghost", args: [], env: [] }] });
    const answer = await fx.service.requestClient("g1", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r1", method: "tools/list" });
    expect(answer["error"]).toMatchObject({ code: -33002, message: expect.stringMatching(/^MCP server "ghost": could not start `\/nonexistent\/ghost`: .*ENOENT/) });
  });

  it("says what a server that exits during its start wrote on stderr, not only that the connection closed", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    // server-filesystem exits with code 1 when none of its directories exists.
    const files = { name: "files", command: process.execPath, args: [FILESYSTEM, "/nonexistent/hermes-dir"], env: [] };
    await p.request("session/new", { cwd: process.cwd(), mcpServers: [files] });
    const answer = await fx.service.requestClient("f1", "mcp/message", { serverId: "hermes-proxy-stdio-1", requestId: "r1", method: "tools/list" });
    expect((answer["error"] as { message: string }).message).toMatch(
      /^MCP server "files": could not start `.*`: the process exited during the MCP handshake; its stderr ended: ".*Error: None of the specified directories are accessible"$/,
    );
  });
});
