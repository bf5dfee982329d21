/**
 * MCP servers from the editor's config, inside workerd: `acp` servers (real
 * MCP SDK servers behind the test editor's `mcp/message` handler), and the
 * failures of `http`, `sse` and `stdio` entries, which never stop the session.
 * The real `http` and proxy-run `stdio` servers are in test/e2e/mcp.e2e.test.ts.
 */
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionStore } from "../../src/session/session-store.js";
import { McpBackend } from "./mcp-backend.js";
import { mockCalls, mockScript, ScriptedEditor, select, toolResults, uniqueCwd, uniqueKey, withEnv } from "./scripted-editor.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
const acp = (name: string, serverId = `${name}-id`) => ({ type: "acp", name, serverId });

const docs = (backend: McpBackend, serverId = "docs-id") =>
  backend.add(serverId, (s) => {
    s.registerTool("echo", { title: "Echo", description: "Echoes the message", inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } }, async ({ message }) => ({
      content: [{ type: "text", text: `Echo: ${message}` }],
    }));
    s.registerTool("delete_page", { description: "Deletes a page", inputSchema: { page: z.string() }, annotations: { destructiveHint: true } }, async ({ page }) => ({
      content: [{ type: "text", text: `deleted ${page}` }],
    }));
  });

async function setup(servers: unknown[], prepare?: (backend: McpBackend) => Promise<unknown>) {
  const editor = await ScriptedEditor.open();
  const backend = new McpBackend(editor.client);
  await prepare?.(backend);
  const sessionId = await editor.newSession(uniqueCwd(), undefined, { mcpServers: servers });
  return { editor, backend, sessionId, key: uniqueKey() };
}

/** Resolves once the session has asked every acp server for its tools and had its answers. */
async function listed(editor: ScriptedEditor, backend: McpBackend, count: number): Promise<void> {
  for (let i = 0; i < 200 && backend.received.filter((r) => r.method === "tools/list").length < count; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  void editor;
}

/** The agent_message_chunk notices about MCP servers, once `count` have arrived. */
async function notices(editor: ScriptedEditor, sessionId: string, count: number): Promise<string[]> {
  const all = () => editor.client.updates(sessionId).map((f) => f.params.update).filter((u) => u.sessionUpdate === "agent_message_chunk" && /MCP server/.test(u.content.text));
  for (let i = 0; i < 200 && all().length < count; i++) await new Promise((r) => setTimeout(r, 50));
  return all().map((u) => u.content.text as string);
}

const offered = (calls: any[]) => (calls[0].body.tools ?? []).map((t: any) => t.function.name as string);
const permissionRequests = (editor: ScriptedEditor) => editor.requests("session/request_permission").map((f) => f.params);

describe("acp MCP servers over mcp/message", () => {
  it("offers the server's tools as mcp__<server>__<tool>, runs a read-only one without asking and shows it to the editor", async () => {
    const { editor, backend, sessionId, key } = await setup([acp("docs site", "docs-id")], docs);
    await listed(editor, backend, 1);
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("c1", "mcp__docs_site__echo", { message: "hi" })] }, { text: "done" }]);
    expect(offered(calls)).toEqual(expect.arrayContaining(["mcp__docs_site__echo", "mcp__docs_site__delete_page", "read_file"]));
    const spec = calls[0].body.tools.find((t: any) => t.function.name === "mcp__docs_site__echo").function;
    expect(spec.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(toolResults(calls[1])).toEqual({ c1: "Echo: hi" });
    expect(editor.toolUpdates(sessionId, "c1")).toEqual([
      expect.objectContaining({ sessionUpdate: "tool_call", title: "docs site: Echo", kind: "read", rawInput: { message: "hi" } }),
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "content", content: { type: "text", text: "Echo: hi" } }] },
    ]);
    expect(permissionRequests(editor)).toEqual([]);
    // Listed at attach, and again when the turn starts.
    expect(backend.received.map((r) => r.method)).toEqual(["tools/list", "tools/list", "tools/call"]);
    expect(backend.received[2]!.params).toMatchObject({ name: "echo", arguments: { message: "hi" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
  });

  it("asks before a tool that is not read-only, and remembers 'always allow' as mcp__server__tool", async () => {
    const { editor, sessionId, key } = await setup([acp("docs")], docs);
    editor.permission = () => select("allow_always");
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("d1", "mcp__docs__delete_page", { page: "a" })] }, { toolCalls: [call("d2", "mcp__docs__delete_page", { page: "b" })] }, { text: "done" }]);
    expect(toolResults(calls[2])).toEqual({ d1: "deleted a", d2: "deleted b" });
    expect(permissionRequests(editor)).toEqual([expect.objectContaining({ toolCall: expect.objectContaining({ toolCallId: "d1", title: "docs: delete_page", kind: "edit" }) })]);
    expect(editor.toolUpdates(sessionId, "d2")[0]).toMatchObject({ kind: "edit", title: "docs: delete_page" });
  });

  it("refuses in read-only mode what would ask, and still runs read-only tools", async () => {
    const editor = await ScriptedEditor.open();
    const backend = new McpBackend(editor.client);
    await docs(backend);
    const sessionId = await editor.newSession(uniqueCwd(), "read_only", { mcpServers: [acp("docs")] });
    const { calls } = await editor.turn(sessionId, uniqueKey(), [{ toolCalls: [call("e", "mcp__docs__echo", { message: "x" }), call("d", "mcp__docs__delete_page", { page: "a" })] }, { text: "ok" }]);
    expect(offered(calls)).not.toContain("mcp__docs__delete_page");
    expect(toolResults(calls[1]).e).toBe("Echo: x");
    expect(toolResults(calls[1]).d).toMatch(/Unknown tool "mcp__docs__delete_page"/);
  });

  it("gives the model a tool error for arguments that fail the input schema, without calling the server", async () => {
    const { editor, backend, sessionId, key } = await setup([acp("docs")], docs);
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("c1", "mcp__docs__echo", { message: 42 })] }, { text: "sorry" }]);
    expect(toolResults(calls[1]).c1).toMatch(/^Error: Invalid arguments for mcp__docs__echo: .*does not match echo's input schema/);
    expect(backend.received.map((r) => r.method)).not.toContain("tools/call");
  });

  const bigServer = (b: McpBackend) =>
    b.add("big-id", (s) => s.registerTool("dump", { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "x".repeat(5 * 1024 * 1024) }] })));

  it("fails a call whose answer is larger than the connection's frame limit at once, and the session stays usable", async () => {
    const { editor, sessionId, key } = await setup([acp("big")], bigServer);
    const started = Date.now();
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("c1", "mcp__big__dump", {})] }, { text: "too big" }]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(toolResults(calls[1]).c1).toMatch(/^Error: MCP server "big" stopped responding: the editor answered -32600: The answer of 5,243,\d+ bytes exceeds the 65,536-byte frame limit/);
    expect(await editor.turn(sessionId, uniqueKey(), [{ text: "still here" }])).toMatchObject({ stopReason: "end_turn" });
  });

  it("bounds a 5 MB result for the model and the editor", async () => {
    const { editor, sessionId, key } = await withEnv({ HERMES_MAX_FRAME_BYTES: String(8 * 1024 * 1024) }, () => setup([acp("big")], bigServer));
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("c1", "mcp__big__dump", {})] }, { text: "done" }]);
    const result = toolResults(calls[1]).c1!;
    expect(result.length).toBeLessThan(101_000);
    expect(result).toMatch(/\[Truncated: 5,142,880 more characters not included \(limit 100,000\)/);
    const shown = editor.outcome(sessionId, "c1").content[0].content.text as string;
    expect(shown.length).toBeLessThan(6_000);
    expect(await editor.turn(sessionId, uniqueKey(), [{ text: "still here" }])).toMatchObject({ stopReason: "end_turn" });
  });

  it("converts images, resource links, embedded resources and structured content", async () => {
    const { editor, sessionId, key } = await setup([acp("media")], (b) =>
      b.add("media-id", (s) =>
        s.registerTool("mixed", { annotations: { readOnlyHint: true }, outputSchema: { n: z.number() } }, async () => ({
          content: [
            { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
            { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
            { type: "resource", resource: { uri: "file:///b.txt", mimeType: "text/plain", text: "inside b" } },
          ],
          structuredContent: { n: 7 },
        })),
      ),
    );
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("c1", "mcp__media__mixed", {})] }, { text: "done" }]);
    expect(toolResults(calls[1]).c1).toBe(
      "[image: image/png, 6 bytes]\n\n[resource link: a.txt <file:///a.txt> (text/plain)]\n\n[resource file:///b.txt (text/plain)]\ninside b\n\nStructured result:\n{\"n\":7}",
    );
    expect(editor.outcome(sessionId, "c1").content).toEqual([
      { type: "content", content: { type: "image", data: "aGVsbG8=", mimeType: "image/png" } },
      { type: "content", content: { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" } },
      { type: "content", content: { type: "resource", resource: { uri: "file:///b.txt", text: "inside b", mimeType: "text/plain" } } },
      { type: "content", content: { type: "text", text: "{\"n\":7}" } },
    ]);
  });

  it("fails calls to a server that dies mid-session with a clear message, and reconnects it once on the next call", async () => {
    const { editor, backend, sessionId, key } = await setup([acp("docs")], docs);
    await listed(editor, backend, 1);
    backend.stop("docs-id");
    const steps = [{ toolCalls: [call("c1", "mcp__docs__echo", { message: "a" })] }, { text: "hmm" }, { toolCalls: [call("c2", "mcp__docs__echo", { message: "b" })] }, { text: "ok" }];
    const first = await editor.turn(sessionId, key, steps);
    expect(toolResults(first.calls[1]).c1).toMatch(/^Error: MCP server "docs" stopped responding: .*exited.*It will be reconnected once, on the next call/);
    backend.restart("docs-id");
    const second = await editor.turn(sessionId, key, null);
    expect(toolResults(second.calls[3]).c2).toBe("Echo: b");
    // The first turn's list fails and changes nothing; its call finds the server gone, the next one reconnects it.
    expect(backend.received.map((r) => r.method)).toEqual(["tools/list", "tools/list", "tools/call", "tools/list", "tools/call"]);
  });

  it("gives every inner MCP request its own id, across the session's servers and a link made again after a drop", async () => {
    const { editor, backend, sessionId, key } = await setup([acp("docs"), acp("more")], async (b) => {
      await docs(b);
      await b.add("more-id", (s) => s.registerTool("ping", { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "pong" }] })));
    });
    await listed(editor, backend, 2);
    backend.stop("docs-id");
    const steps = [{ toolCalls: [call("c1", "mcp__docs__echo", { message: "a" }), call("p1", "mcp__more__ping", {})] }, { text: "hmm" }, { toolCalls: [call("c2", "mcp__docs__echo", { message: "b" })] }, { text: "ok" }];
    await editor.turn(sessionId, key, steps);
    backend.restart("docs-id");
    const second = await editor.turn(sessionId, key, null);
    expect(toolResults(second.calls[3]).c2).toBe("Echo: b");
    const requestIds = editor.client.frames.filter((f) => f.method === "mcp/message" && f.id !== undefined).map((f) => f.params.requestId as string);
    expect(requestIds).toHaveLength(9); // two lists, the first turn's two and two calls; the second turn's one, the reconnect's list and call
    expect(new Set(requestIds).size).toBe(requestIds.length);
  });

  it("connects the attached editor's servers again when the session object is reset while the editor stays", async () => {
    const { editor, backend, sessionId } = await setup([acp("docs")], docs);
    await listed(editor, backend, 1);
    // Only the session object goes; the connection and its socket stay.
    const stub = env.SESSION.get(env.SESSION.idFromName(sessionId));
    await runInDurableObject(stub, (_instance, state) => state.abort("reset by the test")).catch(() => undefined);
    // The connection's stub to the reset object is broken once (Cloudflare: make a new one), then works again.
    await editor.client.request("session/set_mode", { sessionId, modeId: "default" });
    const { calls } = await editor.turn(sessionId, uniqueKey(), [{ toolCalls: [call("c1", "mcp__docs__echo", { message: "again" })] }, { text: "done" }]);
    expect(offered(calls)).toContain("mcp__docs__echo");
    expect(toolResults(calls[1])).toEqual({ c1: "Echo: again" });
    expect(backend.received.filter((r) => r.method === "tools/list").length).toBeGreaterThanOrEqual(2);
  });

  it("follows notifications/tools/list_changed", async () => {
    let server!: Awaited<ReturnType<typeof docs>>;
    const { editor, backend, sessionId } = await setup([acp("docs")], async (b) => (server = await docs(b)));
    await listed(editor, backend, 1);
    server.registerTool("late", { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "late" }] }));
    editor.client.notify("mcp/message", { serverId: "docs-id", requestId: "hermes-1", method: "notifications/tools/list_changed" });
    const { calls } = await editor.turn(sessionId, uniqueKey(), [{ text: "ok" }]);
    expect(offered(calls)).toContain("mcp__docs__late");
  });

  it("lists each server again when a turn starts: tools added while no notification could reach the session are offered, even by a server that had none", async () => {
    let server!: Awaited<ReturnType<typeof docs>>;
    let hidden!: RegisteredTool;
    const { editor, backend, sessionId } = await setup([acp("docs"), acp("empty")], async (b) => {
      server = await docs(b);
      await b.add("empty-id", (s) => {
        // Disabled before it connects: it declares tools but lists none.
        hidden = s.registerTool("hidden", { annotations: { readOnlyHint: true } }, async () => ({ content: [] }));
        hidden.disable();
      });
    });
    await listed(editor, backend, 2);
    // The SDK servers' own list_changed end at the test editor: the binding gives an idle server no request to send them with.
    server.registerTool("late", { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "late" }] }));
    hidden.enable();
    const { calls } = await editor.turn(sessionId, uniqueKey(), [{ text: "ok" }]);
    expect(offered(calls)).toEqual(expect.arrayContaining(["mcp__docs__late", "mcp__empty__hidden"]));
    expect(backend.received.map((r) => `${r.serverId} ${r.method}`).sort()).toEqual(["docs-id tools/list", "docs-id tools/list", "empty-id tools/list", "empty-id tools/list"]);
  });

  it("reports two servers with the same name and tools whose names collide, keeping the first", async () => {
    const { editor, sessionId, key } = await setup([acp("docs"), acp("docs", "other-id")], async (b) => {
      await docs(b);
      await b.add("other-id", (s) => s.registerTool("other", {}, async () => ({ content: [] })));
      await b.add("dup-id", () => undefined);
    });
    const texts = await notices(editor, sessionId, 1);
    expect(texts.join("")).toMatch(/MCP server "docs" \(acp\): unavailable: another server in this session is already named "docs"/);
    const { calls } = await editor.turn(sessionId, key, [{ text: "ok" }]);
    expect(offered(calls).filter((n: string) => n.startsWith("mcp__"))).toEqual(["mcp__docs__echo", "mcp__docs__delete_page"]);
  });

  it("keeps built-in tools when an MCP tool has a built-in's name, and reports tool names that collide", async () => {
    const { editor, sessionId, key } = await setup([acp("fs")], (b) =>
      b.add("fs-id", (s) => {
        s.registerTool("read_file", { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "from mcp" }] }));
        s.registerTool("a.b", {}, async () => ({ content: [] }));
        s.registerTool("a_b", {}, async () => ({ content: [] }));
      }),
    );
    const texts = await notices(editor, sessionId, 1);
    expect(texts.join("")).toMatch(/tool "a_b" is left out: another MCP tool is already named mcp__fs__a_b/);
    const { calls } = await editor.turn(sessionId, key, [{ text: "ok" }]);
    const names = offered(calls);
    expect(names).toEqual(expect.arrayContaining(["read_file", "mcp__fs__read_file", "mcp__fs__a_b"]));
    expect(names.filter((n: string) => n === "read_file" || n === "mcp__fs__a_b")).toHaveLength(2);
  });
});

describe("a server whose tools/list the MCP schema refuses in part", () => {
  it("leaves out only the tools that fail it, naming each and why, and offers the others", async () => {
    const broken = [{ name: "untyped", inputSchema: { properties: { q: { type: "string" } } } }, { description: "has no name", inputSchema: { type: "object" } }];
    const { editor, sessionId, key } = await setup([acp("mixed")], (b) =>
      b.add("mixed-id", (s) => s.registerTool("echo", { inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } }, async ({ message }) => ({ content: [{ type: "text", text: message }] })), (result) => ({
        ...result,
        tools: [...result.tools, ...broken],
      })),
    );
    const texts = (await notices(editor, sessionId, 1)).join("");
    expect(texts).toMatch(/MCP server "mixed" \(acp\): tool "untyped" is left out: inputSchema\.type: Invalid input: expected "object"; tool #3 is left out: name: Invalid input/);
    expect(texts).not.toMatch(/unavailable/);
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("m1", "mcp__mixed__echo", { message: "still here" })] }, { text: "ok" }]);
    expect(offered(calls).filter((n: string) => n.startsWith("mcp__"))).toEqual(["mcp__mixed__echo"]);
    expect(toolResults(calls[1]).m1).toBe("still here");
  });

  it("fails a server whose answer is no list of tools at all, saying so", async () => {
    const { editor, sessionId } = await setup([acp("junk")], (b) => b.add("junk-id", (s) => s.registerTool("t", {}, async () => ({ content: [] })), () => ({ tools: "none" })));
    const texts = (await notices(editor, sessionId, 1)).join("");
    expect(texts).toMatch(/MCP server "junk" \(acp\): unavailable: its tools\/list answer is not a list of tools \(tools: Invalid input: expected array, received string\)/);
  });
});

describe("which servers a session has", () => {
  it("takes them from session/load and session/fork too, for the connection that declared them", async () => {
    const first = await ScriptedEditor.open();
    const sessionId = await first.newSession(uniqueCwd());
    const editor = await ScriptedEditor.open();
    const backend = new McpBackend(editor.client);
    await docs(backend);
    const loaded = await editor.client.request("session/load", { sessionId, cwd: uniqueCwd(), mcpServers: [acp("docs")] });
    expect(loaded.error).toBeUndefined();
    const key = uniqueKey();
    const { calls } = await editor.turn(sessionId, key, [{ text: "ok" }]);
    expect(offered(calls)).toContain("mcp__docs__echo");
    const fork = await editor.client.call("session/fork", { sessionId, cwd: uniqueCwd(), mcpServers: [] });
    // The fork's history carries the first prompt's mock key, so its model call is the key's second.
    const forked = await editor.turn(fork.sessionId, key, null);
    expect(forked.calls).toHaveLength(2);
    expect(offered(forked.calls.slice(1)).some((n: string) => n.startsWith("mcp__"))).toBe(false);
  });
});

describe("sub-agents", () => {
  it("get the parent's MCP tools, called through the parent's connection", async () => {
    const child = uniqueKey("child");
    await mockScript(child, [{ toolCalls: [call("cc", "mcp__docs__echo", { message: "from the sub-agent" })] }, { text: "child done" }]);
    const { editor, backend, sessionId, key } = await setup([acp("docs")], docs);
    await editor.turn(sessionId, key, [{ toolCalls: [call("call_delegate", "delegate_task", { goal: `echo it [[mock:${child}]]` })] }, { text: "parent done" }]);
    const childCalls = await mockCalls(child);
    expect(offered(childCalls)).toEqual(expect.arrayContaining(["mcp__docs__echo", "mcp__docs__delete_page"]));
    expect(toolResults(childCalls[1])).toEqual({ cc: "Echo: from the sub-agent" });
    expect(backend.received.filter((r) => r.method === "tools/call").map((r) => r.params.arguments)).toEqual([{ message: "from the sub-agent" }]);
  });
  it("cancel their in-flight MCP call at the server when their own turn is cancelled", async () => {
    const child = uniqueKey("child");
    await mockScript(child, [{ toolCalls: [call("cw", "mcp__slow__wait", {})] }, { text: "never" }]);
    const { editor, sessionId, key } = await setup([acp("slow")], (b) =>
      b.add("slow-id", (s) => s.registerTool("wait", { annotations: { readOnlyHint: true } }, () => new Promise<never>(() => undefined))),
    );
    // The sub-agent's own time limit cancels its turn; the parent's turn goes on.
    const { calls } = await editor.turn(sessionId, key, [{ toolCalls: [call("call_delegate", "delegate_task", { goal: `wait [[mock:${child}]]`, timeout_seconds: 1 })] }, { text: "parent done" }]);
    expect(toolResults(calls[1]).call_delegate).toMatch(/timeout/);
    const callFrame = editor.client.frames.find((f) => f.method === "mcp/message" && f.params.method === "tools/call");
    expect(callFrame).toBeDefined();
    const cancelled = await editor.client.next((f) => f.method === "$/cancel_request" && f.params.requestId === callFrame!.id, 5_000, 0);
    expect(cancelled).toBeDefined();
  });
});

describe("servers that cannot be used never break the session", () => {
  it("opens the session, names each server and its cause, and lists them with /mcp", async () => {
    const servers = [
      { type: "http", name: "remote", url: "https://mcp.invalid/mcp", headers: [] },
      { type: "http", name: "local", url: "http://127.0.0.1:9/mcp", headers: [] },
      { type: "sse", name: "old", url: "http://localhost:9/sse", headers: [] },
      { name: "files", command: "/usr/bin/mcp-files", args: [], env: [{ name: "FILES_API_KEY", value: "secret-value" }] },
    ];
    const { editor, sessionId, key } = await setup(servers);
    // The stdio server cannot run here, so its environment (a secret, often) is not kept in storage.
    // (Stored right after the response goes out, so it is polled for.)
    const stored = () => runInDurableObject(env.SESSION.get(env.SESSION.idFromName(sessionId)), (_i, ctx) => new SessionStore(ctx.storage.sql).mcpServers());
    await expect.poll(async () => (await stored()).flatMap((s) => s.entries as { name: string; env?: unknown }[]).find((e) => e.name === "files")?.env).toEqual([]);
    expect(JSON.stringify(await stored())).not.toContain("secret-value");
    const texts = (await notices(editor, sessionId, 4)).join("");
    expect(texts).toMatch(/MCP server "remote" \(http\): unavailable: /);
    expect(texts).toMatch(/MCP server "local" \(http\): unavailable: 127\.0\.0\.1 is a local or private address.*HERMES_ALLOW_PRIVATE_MCP=1/);
    expect(texts).toMatch(/MCP server "old" \(sse\): unavailable: localhost is a local or private address/);
    expect(texts).toMatch(/MCP server "files" \(stdio\): unavailable: stdio servers run on your machine.*hermes-edge-proxy/);
    const { stopReason, calls } = await editor.turn(sessionId, key, [{ text: "still works" }]);
    expect(stopReason).toBe("end_turn");
    expect(offered(calls).some((n: string) => n.startsWith("mcp__"))).toBe(false);
    const report = await editor.client.prompt(sessionId, "/mcp").response;
    expect(report.result.stopReason).toBe("end_turn");
    const text = editor.client.agentText(sessionId);
    expect(text).toMatch(/- \*\*remote\*\* \(http\): failed, 0 tools — /);
    expect(text).toMatch(/- \*\*files\*\* \(stdio\): unsupported, 0 tools/);
  });

  it("/tools groups MCP tools by server", async () => {
    const { editor, sessionId } = await setup([acp("docs")], docs);
    await editor.client.prompt(sessionId, "/tools").response;
    expect(editor.client.agentText(sessionId)).toMatch(/Tools in this session \(default mode\): read_file, .*\nMCP server docs: mcp__docs__echo, mcp__docs__delete_page/);
  });

  it("rejects a session/new or session/load that declares more than 32 MCP servers with -32602 naming the limit", async () => {
    const editor = await ScriptedEditor.open();
    const mcpServers = Array.from({ length: 33 }, (_, i) => acp(`s${i}`));
    const created = await editor.client.request("session/new", { cwd: uniqueCwd(), mcpServers });
    expect(created.error).toMatchObject({ code: -32602, data: [expect.objectContaining({ path: ["mcpServers"], message: "at most 32 MCP servers per session; this request declares 33" })] });
    const sessionId = await editor.newSession(uniqueCwd());
    const loaded = await editor.client.request("session/load", { sessionId, cwd: uniqueCwd(), mcpServers });
    expect(loaded.error).toMatchObject({ code: -32602, data: [expect.objectContaining({ message: "at most 32 MCP servers per session; this request declares 33" })] });
    expect(await editor.turn(sessionId, uniqueKey(), [{ text: "still here" }])).toMatchObject({ stopReason: "end_turn" });
  });

  it("rejects a malformed mcpServers entry with -32602 pointing at it", async () => {
    const editor = await ScriptedEditor.open();
    const res = await editor.client.request("session/new", { cwd: uniqueCwd(), mcpServers: [{ type: "http", name: "x" }] });
    expect(res.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(res.error.data)).toContain("url");
  });
});
