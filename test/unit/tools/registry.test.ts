// The registry and how each tool's call looks in the editor when the turn loop
// runs it: tool_call (title, kind, locations) → in_progress → completed/failed.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { runToolCall, toolSpecs } from "../../../src/agent/tool-runner.js";
import { ALL_TOOLS, toolsFor } from "../../../src/tools/index.js";
import type { AnyTool } from "../../../src/tools/tool.js";
import { ALL_CAPS, FakeClient, fakeContext, scriptTerminal } from "./fakes.js";

const names = (tools: AnyTool[]) => tools.map((t) => t.name);

describe("tool registry", () => {
  const ALWAYS = ["web_fetch", "todo", "memory", "session_search"];

  it("registers every tool once", () => {
    expect(names(ALL_TOOLS)).toEqual([
      "read_file", "write_file", "patch", "search_files", "terminal", "web_fetch", "todo", "clarify", "memory", "session_search",
    ]);
  });

  it.each([
    [ALL_CAPS, ["read_file", "write_file", "patch", "search_files", "terminal", ...ALWAYS]],
    [{}, ALWAYS],
    [{ fs: { readTextFile: true } }, ["read_file", ...ALWAYS]],
    [{ fs: { writeTextFile: true } }, ["write_file", ...ALWAYS]],
    [{ terminal: true }, ["search_files", "terminal", ...ALWAYS]],
    [{ fs: { readTextFile: false, writeTextFile: false }, terminal: false }, ALWAYS],
    [{ elicitation: { form: {} } }, ["web_fetch", "todo", "clarify", "memory", "session_search"]],
    [{ elicitation: { url: {} } }, ALWAYS],
    [{ elicitation: { form: null } }, ALWAYS],
  ])("offers only what the client can do: %j", (caps, expected) => {
    expect(names(toolsFor(new FakeClient(caps)))).toEqual(expected);
  });

  it("describes every tool to the model with a JSON schema", () => {
    for (const spec of toolSpecs(ALL_TOOLS)) {
      expect(spec).toMatchObject({ type: "function", function: { description: expect.stringMatching(/.{40}/), parameters: { type: "object" } } });
    }
  });

  it("gives the same tools the same spec list, so a request body serializes their schemas once, and other tools their own", () => {
    const all = toolSpecs([...ALL_TOOLS]);
    expect(toolSpecs([...ALL_TOOLS])).toBe(all);
    const some = toolSpecs(ALL_TOOLS.slice(1));
    expect(some).not.toBe(all);
    expect(some.map((s) => s.type === "function" && s.function.name)).toEqual(names(ALL_TOOLS.slice(1)));
    expect(toolSpecs(ALL_TOOLS.slice(0, 3).reverse()).map((s) => s.type === "function" && s.function.name)).toEqual(["patch", "write_file", "read_file"]);
  });
});

async function runThroughLoop(client: FakeClient, name: string, args: unknown) {
  const updates: SessionUpdate[] = [];
  const ctx = fakeContext(client);
  ctx.emit = (u) => updates.push(u);
  const output = await runToolCall(
    { id: "call-1", name, arguments: JSON.stringify(args) },
    ALL_TOOLS,
    { emit: (u) => updates.push(u), toolContext: () => ctx },
    ctx.signal,
  );
  return { output, updates };
}

describe("rendering through the turn loop", () => {
  it("renders a read with its title, kind, location and preview", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "body" }));
    const { updates } = await runThroughLoop(client, "read_file", { path: "/work/proj/src/a.ts", line: 4 });
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "call-1",
        title: "Read /work/proj/src/a.ts (from line 4)",
        kind: "read",
        status: "pending",
        rawInput: { path: "/work/proj/src/a.ts", line: 4 },
        locations: [{ path: "/work/proj/src/a.ts", line: 4 }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "in_progress" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "body" } }],
        rawOutput: { path: "/work/proj/src/a.ts", characters: 4, truncatedForModel: false },
        locations: [{ path: "/work/proj/src/a.ts", line: 4 }],
      },
    ]);
  });

  it("renders an edit as a diff of the real before and after", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "a\nb\n" })).on("fs/write_text_file", () => ({}));
    const { updates } = await runThroughLoop(client, "patch", { path: "/work/proj/x.txt", patch: "@@ -2 +2 @@\n-b\n+c\n" });
    expect(updates[0]).toMatchObject({ title: "Edit /work/proj/x.txt", kind: "edit", locations: [{ path: "/work/proj/x.txt" }] });
    expect(updates.at(-1)).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: "/work/proj/x.txt", oldText: "a\nb\n", newText: "a\nc\n" }],
      locations: [{ path: "/work/proj/x.txt", line: 2 }],
    });
  });

  it("renders a command as `$ command` with its live terminal", async () => {
    const client = scriptTerminal(new FakeClient(), { output: "done" });
    const { updates, output } = await runThroughLoop(client, "terminal", { command: "npm test" });
    expect(updates.map((u) => ("status" in u ? u.status : undefined) ?? ("content" in u ? "content" : u.sessionUpdate))).toEqual([
      "pending",
      "in_progress",
      "content",
      "completed",
    ]);
    expect(updates[0]).toMatchObject({ title: "$ npm test", kind: "execute" });
    expect(updates.at(-1)).toMatchObject({ content: [{ type: "terminal", terminalId: "term-1" }] });
    expect(output).toBe("Exit code 0.\ndone");
  });

  it("fails a call on an escaping path with a clear reason and no client request", async () => {
    const client = new FakeClient().on("fs/write_text_file", () => ({}));
    const { updates, output } = await runThroughLoop(client, "write_file", { path: "/work/proj/../../etc/cron.d/x", content: "boom" });
    expect(client.requests).toEqual([]);
    expect(updates[0]).toMatchObject({ title: "Write /work/proj/../../etc/cron.d/x", kind: "edit", locations: [] });
    expect(updates.at(-1)).toMatchObject({ status: "failed" });
    expect(output).toMatch(/^Error: "\/work\/proj\/\.\.\/\.\.\/etc\/cron\.d\/x" escapes the workspace through "\.\."/);
  });

  it("renders the todo list as a plan update inside the call", async () => {
    const { updates } = await runThroughLoop(new FakeClient({}), "todo", { todos: [{ content: "x", status: "in_progress" }] });
    expect(updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update", "plan", "tool_call_update"]);
    expect(updates[0]).toMatchObject({ kind: "other", title: "Update plan (1 item)" });
  });
});
