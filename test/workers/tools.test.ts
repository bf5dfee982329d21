/**
 * Each tool end to end: a scripted model calls it, the session runs it against
 * a scripted editor, and the test checks the requests the editor received, the
 * tool call as the editor renders it, and what the model read back.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockScript, offeredTools, ScriptedEditor, toolResults, uniqueKey, unknownToolResult } from "./scripted-editor.js";

const CWD = "/work/proj";
const ALL_TOOL_NAMES = ["read_file", "write_file", "patch", "search_files", "terminal", "web_fetch", "todo"];

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
/** One model step calling `calls`, then one ending the turn. */
const steps = (...calls: ReturnType<typeof call>[]) => [{ toolCalls: calls }, { text: "done" }];

/** An editor with every capability and a session in `mode` (dont_ask keeps permission prompts out of tool tests). */
async function setup(mode = "dont_ask", capabilities?: Record<string, unknown>) {
  const editor = await ScriptedEditor.open(capabilities);
  const sessionId = await editor.newSession(CWD, mode);
  return { editor, sessionId, key: uniqueKey() };
}

describe("client capabilities", () => {
  it("offers no file or terminal tools to a client without fs and terminal, and never sends it fs/* or terminal/*", async () => {
    const { editor, sessionId, key } = await setup("dont_ask", {});
    editor.files.set(`${CWD}/a.ts`, "x");
    const turn = await editor.turn(
      sessionId,
      key,
      steps(
        call("c1", "read_file", { path: `${CWD}/a.ts` }),
        call("c2", "write_file", { path: `${CWD}/a.ts`, content: "y" }),
        call("c3", "terminal", { command: "ls" }),
        call("c4", "search_files", { pattern: "x" }),
      ),
    );
    expect(turn.stopReason).toBe("end_turn");
    expect(offeredTools(turn.calls[0])).toEqual(["web_fetch", "todo"]);
    const unknown = (name: string) => unknownToolResult(name, turn.calls[0]);
    expect(toolResults(turn.calls[1])).toEqual({ c1: unknown("read_file"), c2: unknown("write_file"), c3: unknown("terminal"), c4: unknown("search_files") });
    expect(editor.methods()).toEqual([]);
    expect(editor.files.get(`${CWD}/a.ts`)).toBe("x");
    editor.close();
  });

  it("offers only read_file of the editor tools to a client that can read but not write or run commands", async () => {
    const { editor, sessionId, key } = await setup("dont_ask", { fs: { readTextFile: true } });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "patch", { path: `${CWD}/a.ts`, old_string: "a", new_string: "b" })));
    expect(offeredTools(turn.calls[0])).toEqual(["read_file", "web_fetch", "todo"]);
    expect(toolResults(turn.calls[1]).c1).toBe(unknownToolResult("patch", turn.calls[0]));
    expect(editor.methods()).toEqual([]);
    editor.close();
  });

  it("offers every tool to a client that advertises fs and terminal", async () => {
    const { editor, sessionId, key } = await setup("default");
    const turn = await editor.turn(sessionId, key, [{ text: "hi" }]);
    expect(offeredTools(turn.calls[0])).toEqual(ALL_TOOL_NAMES);
    editor.close();
  });
});

describe("read_file", () => {
  it("reads through fs/read_text_file with the 1-based line and limit and renders title, kind, locations and preview", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/src/a.ts`;
    editor.files.set(path, "one\ntwo\nthree\nfour\n");
    const turn = await editor.turn(sessionId, key, steps(call("c1", "read_file", { path, line: 2, limit: 2 })));
    expect(editor.requests("fs/").map((f) => [f.method, f.params])).toEqual([["fs/read_text_file", { sessionId, path, line: 2, limit: 2 }]]);
    expect(editor.toolUpdates(sessionId)).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        title: `Read ${path} (lines 2–3)`,
        kind: "read",
        status: "pending",
        rawInput: { path, line: 2, limit: 2 },
        locations: [{ path, line: 2 }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "two\nthree" } }],
        rawOutput: { path, characters: 9, truncatedForModel: false },
        locations: [{ path, line: 2 }],
      },
    ]);
    expect(toolResults(turn.calls[1])).toEqual({ c1: "two\nthree" });
    editor.close();
  });

  it("shows the editor a 5,000-character preview saying what was cut, while the model reads the whole file", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/big.txt`;
    editor.files.set(path, "x".repeat(12_000));
    const turn = await editor.turn(sessionId, key, steps(call("c1", "read_file", { path })));
    expect(editor.outcome(sessionId, "c1").content).toEqual([
      { type: "content", content: { type: "text", text: `${"x".repeat(5_000)}\n… 7,000 more characters not shown` } },
    ]);
    expect(toolResults(turn.calls[1]).c1).toBe("x".repeat(12_000));
    editor.close();
  });

  it("fails with the editor's error when the file cannot be read", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/missing.ts`;
    const turn = await editor.turn(sessionId, key, steps(call("c1", "read_file", { path })));
    const reason = `The editor could not read ${path}: Error: file not found: ${path} [-32603]`;
    expect(editor.outcome(sessionId, "c1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: reason } }],
    });
    expect(toolResults(turn.calls[1]).c1).toBe(`Error: ${reason}`);
    editor.close();
  });
});

describe("write_file", () => {
  it("writes through fs/write_text_file and shows the real old and new text as a diff", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/a.ts`;
    editor.files.set(path, "a\nb\n");
    const turn = await editor.turn(sessionId, key, steps(call("c1", "write_file", { path, content: "a\nc\n" })));
    expect(editor.requests("fs/").map((f) => [f.method, f.params])).toEqual([
      ["fs/read_text_file", { sessionId, path }],
      ["fs/write_text_file", { sessionId, path, content: "a\nc\n" }],
    ]);
    expect(editor.toolUpdates(sessionId, "c1")[0]).toMatchObject({ title: `Write ${path}`, kind: "edit", locations: [{ path }] });
    expect(editor.outcome(sessionId, "c1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "completed",
      content: [{ type: "diff", path, oldText: "a\nb\n", newText: "a\nc\n" }],
      rawOutput: { path, created: false, characters: 4 },
      locations: [{ path, line: 2 }],
    });
    expect(toolResults(turn.calls[1]).c1).toBe(`Overwrote ${path} (2 lines, 4 characters).`);
    expect(editor.files.get(path)).toBe("a\nc\n");
    editor.close();
  });

  it("creates a missing file, showing it as new (oldText null)", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/new.ts`;
    const turn = await editor.turn(sessionId, key, steps(call("c1", "write_file", { path, content: "hello" })));
    expect(editor.outcome(sessionId, "c1").content).toEqual([{ type: "diff", path, oldText: null, newText: "hello" }]);
    expect(toolResults(turn.calls[1]).c1).toBe(`Created ${path} (1 line, 5 characters).`);
    expect(editor.files.get(path)).toBe("hello");
    editor.close();
  });
});

describe("patch", () => {
  const before = "const a = 1;\nconst b = 2;\n";

  it("replaces the exact text and writes the whole new file, showing the real before and after", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/p.ts`;
    editor.files.set(path, before);
    const turn = await editor.turn(sessionId, key, steps(call("c1", "patch", { path, old_string: "b = 2", new_string: "b = 3" })));
    expect(editor.requests("fs/").map((f) => [f.method, f.params])).toEqual([
      ["fs/read_text_file", { sessionId, path }],
      ["fs/write_text_file", { sessionId, path, content: "const a = 1;\nconst b = 3;\n" }],
    ]);
    expect(editor.outcome(sessionId, "c1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "completed",
      content: [{ type: "diff", path, oldText: before, newText: "const a = 1;\nconst b = 3;\n" }],
      rawOutput: { path, summary: "replaced 1 occurrence" },
      locations: [{ path, line: 2 }],
    });
    expect(toolResults(turn.calls[1]).c1).toBe(`Patched ${path}: replaced 1 occurrence. First change at line 2.`);
    editor.close();
  });

  it("applies a unified diff to the editor's copy", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/p.ts`;
    editor.files.set(path, before);
    const diff = "@@ -1,2 +1,2 @@\n-const a = 1;\n+const a = 10;\n const b = 2;\n";
    const turn = await editor.turn(sessionId, key, steps(call("c1", "patch", { path, patch: diff })));
    expect(editor.files.get(path)).toBe("const a = 10;\nconst b = 2;\n");
    expect(editor.outcome(sessionId, "c1").content).toEqual([{ type: "diff", path, oldText: before, newText: "const a = 10;\nconst b = 2;\n" }]);
    expect(toolResults(turn.calls[1]).c1).toBe(`Patched ${path}: applied 1 hunk. First change at line 1.`);
    editor.close();
  });

  it("fails clearly and writes nothing when the old text is not found or not unique", async () => {
    const { editor, sessionId, key } = await setup();
    const path = `${CWD}/p.ts`;
    editor.files.set(path, before);
    const turn = await editor.turn(
      sessionId,
      key,
      steps(
        call("c1", "patch", { path, old_string: "const c = 3;", new_string: "x" }),
        call("c2", "patch", { path, old_string: "const", new_string: "let" }),
      ),
    );
    const notFound = `Could not patch ${path}: old_string was not found in the file. Read the file again and copy the text exactly, including whitespace.`;
    const ambiguous =
      `Could not patch ${path}: old_string occurs 2 times. Include more surrounding lines so it matches exactly one place, ` +
      "or set replace_all to replace every occurrence.";
    expect(editor.outcome(sessionId, "c1")).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: notFound } }] });
    expect(editor.outcome(sessionId, "c2")).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: ambiguous } }] });
    expect(toolResults(turn.calls[1])).toEqual({ c1: `Error: ${notFound}`, c2: `Error: ${ambiguous}` });
    expect(editor.methods()).toEqual(["fs/read_text_file", "fs/read_text_file"]);
    expect(editor.files.get(path)).toBe(before);
    editor.close();
  });
});

describe("search_files", () => {
  it("runs rg (or grep) through terminal/create in the session cwd, without asking, and releases the terminal", async () => {
    const { editor, sessionId, key } = await setup("default");
    editor.commands = () => ({ output: "src/a.ts:3:// TODO fix\nsrc/b.ts:1:TODO\n", exitCode: 0 });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "search_files", { pattern: "TODO" })));
    const command =
      "{ if command -v rg >/dev/null 2>&1; then rg --line-number --no-heading --color never --max-columns 400 -e TODO --; " +
      "else grep -rnI '--color=never' '--exclude-dir=.git' '--exclude-dir=node_modules' -E -e TODO -- .; fi; } 2>&1 | cut -c 1-1600 | head -n 201";
    expect(editor.requests()[0]).toMatchObject({
      method: "terminal/create",
      params: { sessionId, command, cwd: CWD, outputByteLimit: 201 * 1601 },
    });
    expect(editor.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
    expect(editor.toolUpdates(sessionId, "c1")[0]).toMatchObject({ title: 'Search "TODO"', kind: "search", locations: [{ path: CWD }] });
    expect(editor.outcome(sessionId, "c1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "src/a.ts:3:// TODO fix\nsrc/b.ts:1:TODO" } }],
      rawOutput: { root: CWD, lines: 2, more: false, timedOut: false },
      locations: [{ path: CWD }],
    });
    expect(toolResults(turn.calls[1]).c1).toBe("src/a.ts:3:// TODO fix\nsrc/b.ts:1:TODO");
    editor.close();
  });

  it("stops at max_results and says so, asking the shell for one line more", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ output: "a:1:x\nb:2:x\nc:3:x\n", exitCode: 0 });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "search_files", { pattern: "x", path: `${CWD}/src`, max_results: 2 })));
    expect(editor.requests("terminal/create")[0]!.params.command).toMatch(/ -- src; fi; \} 2>&1 \| cut -c 1-1600 \| head -n 3$/);
    expect(editor.requests("terminal/create")[0]!.params.cwd).toBe(CWD);
    const shown = "a:1:x\nb:2:x\n[Showing the first 2 lines; narrow the search with path or glob to see the rest.]";
    expect(editor.outcome(sessionId, "c1")).toMatchObject({ status: "completed", rawOutput: { root: `${CWD}/src`, lines: 2, more: true, timedOut: false } });
    expect(toolResults(turn.calls[1]).c1).toBe(shown);
    editor.close();
  });
});

describe("terminal", () => {
  const outputUpdate = (terminalId: string) => ({
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    content: [{ type: "terminal", terminalId }],
  });

  it("runs the command in an editor terminal, shows it live and releases it", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ output: "1 passed\n", exitCode: 0 });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "terminal", { command: "npm test" })));
    expect(editor.requests("terminal/").map((f) => [f.method, f.params])).toEqual([
      ["terminal/create", { sessionId, command: "npm test", cwd: CWD, outputByteLimit: 65536 }],
      ["terminal/wait_for_exit", { sessionId, terminalId: "term-1" }],
      ["terminal/output", { sessionId, terminalId: "term-1" }],
      ["terminal/release", { sessionId, terminalId: "term-1" }],
    ]);
    expect(editor.toolUpdates(sessionId)).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "$ npm test", kind: "execute", status: "pending", rawInput: { command: "npm test" }, locations: [] },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      outputUpdate("term-1"),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
        content: [{ type: "terminal", terminalId: "term-1" }],
        rawOutput: { exitCode: 0, signal: null, timedOut: false, truncated: false },
      },
    ]);
    expect(toolResults(turn.calls[1]).c1).toBe("Exit code 0.\n1 passed\n");
    editor.close();
  });

  it("reports a non-zero exit code to the model and the editor", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ output: "boom", exitCode: 2 });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "terminal", { command: "make" })));
    expect(editor.outcome(sessionId, "c1")).toMatchObject({
      status: "completed",
      content: [
        { type: "terminal", terminalId: "term-1" },
        { type: "content", content: { type: "text", text: "Exit code 2." } },
      ],
    });
    expect(toolResults(turn.calls[1]).c1).toBe("Exit code 2.\nboom");
    editor.close();
  });

  it("tells the model when the editor kept only the end of the output", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ output: "...last lines", exitCode: 0, truncated: true });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "terminal", { command: "npm run build" })));
    expect(toolResults(turn.calls[1]).c1).toBe("Exit code 0.\n[Output truncated: the editor kept only the last 65,536 bytes.]\n...last lines");
    expect(editor.outcome(sessionId, "c1").rawOutput).toEqual({ exitCode: 0, signal: null, timedOut: false, truncated: true });
    editor.close();
  });

  it("kills and releases a command that outlives its timeout", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ hang: true, output: "partial" });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "terminal", { command: "sleep 100", timeout: 1 })));
    expect(editor.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/kill", "terminal/output", "terminal/release"]);
    expect(editor.requests("terminal/kill")[0]!.params).toEqual({ sessionId, terminalId: "term-1" });
    expect(editor.outcome(sessionId, "c1")).toMatchObject({
      status: "completed",
      content: [
        { type: "terminal", terminalId: "term-1" },
        { type: "content", content: { type: "text", text: "Timed out after 1 s; the command was killed." } },
      ],
      rawOutput: { exitCode: null, signal: "SIGKILL", timedOut: true, truncated: false },
    });
    expect(toolResults(turn.calls[1]).c1).toBe("Timed out after 1 s; the command was killed.\npartial");
    editor.close();
  });

  it("kills and releases the command when the turn is cancelled mid-command", async () => {
    const { editor, sessionId, key } = await setup();
    editor.commands = () => ({ hang: true });
    await mockScript(key, steps(call("c1", "terminal", { command: "npm run watch" })));
    const running = editor.client.prompt(sessionId, `watch [[mock:${key}]]`);
    await editor.client.next((f) => f.method === "terminal/wait_for_exit", 10_000, 0);
    editor.client.notify("session/cancel", { sessionId });
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    await editor.client.next((f) => f.method === "terminal/release", 5_000, 0);
    expect(editor.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/kill", "terminal/release"]);
    expect(editor.outcome(sessionId, "c1")).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Cancelled by the user." } }],
    });
    // The session goes on, and the model's history answers the cancelled call.
    const next = await editor.turn(sessionId, key, null, "next");
    expect(next.stopReason).toBe("end_turn");
    expect(toolResults(next.calls.at(-1))).toEqual({ c1: "Error: Cancelled by the user." });
    editor.close();
  });

  it("releases the terminal when reading its output fails", async () => {
    const { editor, sessionId, key } = await setup();
    editor.client.onRequest("terminal/output", () => {
      throw new Error("terminal vanished");
    });
    const turn = await editor.turn(sessionId, key, steps(call("c1", "terminal", { command: "ls" })));
    expect(editor.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
    const reason = "The editor could not read the command's output: Error: terminal vanished [-32603]";
    expect(editor.outcome(sessionId, "c1")).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: reason } }] });
    expect(toolResults(turn.calls[1]).c1).toBe(`Error: ${reason}`);
    editor.close();
  });
});

describe("web_fetch", () => {
  it("refuses a loopback URL (the mock server) with a clear reason", async () => {
    const { editor, sessionId, key } = await setup();
    const url = `${env.MOCK_URL}/v1/models`;
    const turn = await editor.turn(sessionId, key, steps(call("c1", "web_fetch", { url })));
    const reason = "127.0.0.1 is a local or private address. web_fetch runs on the agent's server, not on your machine, so it only fetches public hosts.";
    expect(editor.toolUpdates(sessionId, "c1")[0]).toMatchObject({ title: `Fetch ${url}`, kind: "fetch" });
    expect(editor.outcome(sessionId, "c1")).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: reason } }] });
    expect(toolResults(turn.calls[1]).c1).toBe(`Error: ${reason}`);
    expect(editor.methods()).toEqual([]);
    editor.close();
  });
});

describe("todo", () => {
  it("sends the list as a plan update, cancelled items shown as completed", async () => {
    const { editor, sessionId, key } = await setup();
    const todos = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress", priority: "high" },
      { id: "t3", content: "Rewrite it all", status: "cancelled" },
      { content: "Run tests", status: "pending", priority: "low" },
    ];
    const turn = await editor.turn(sessionId, key, steps(call("c1", "todo", { todos })));
    const plans = editor.client.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "plan");
    expect(plans.map((f) => f.params.update)).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", status: "completed", priority: "medium" },
          { content: "Fix the bug", status: "in_progress", priority: "high" },
          { content: "Rewrite it all", status: "completed", priority: "medium", _meta: { hermes: { id: "t3", cancelled: true } } },
          { content: "Run tests", status: "pending", priority: "low" },
        ],
      },
    ]);
    expect(editor.toolUpdates(sessionId, "c1")[0]).toMatchObject({ title: "Update plan (4 items)", kind: "other" });
    expect(toolResults(turn.calls[1]).c1).toBe(
      "Plan updated: 1 completed, 1 in progress, 1 pending, 1 cancelled.\n[x] Read the code\n[~] Fix the bug\n[-] Rewrite it all\n[ ] Run tests",
    );
    editor.close();
  });
});

describe("paths", () => {
  it("fails relative paths, .. escapes, other roots and NUL bytes without any editor request", async () => {
    const { editor, sessionId, key } = await setup();
    editor.files.set("/etc/hosts", "127.0.0.1 localhost");
    const turn = await editor.turn(
      sessionId,
      key,
      steps(
        call("c1", "read_file", { path: "src/a.ts" }),
        call("c2", "write_file", { path: `${CWD}/../etc/passwd`, content: "x" }),
        call("c3", "patch", { path: "/etc/hosts", old_string: "127", new_string: "10" }),
        call("c4", "search_files", { pattern: "x", path: `${CWD}2` }),
        call("c5", "terminal", { command: "ls", cwd: "/tmp" }),
        call("c6", "read_file", { path: `${CWD}/a\u0000b` }),
      ),
    );
    const outside = (p: string) => `"${p}" is outside the workspace. Tools may only touch paths under: ${CWD}.`;
    const reasons = {
      c1: `"src/a.ts" is a relative path. Use an absolute path inside the workspace, e.g. ${CWD}/src/a.ts.`,
      c2: `"${CWD}/../etc/passwd" escapes the workspace through ".." (it resolves to /work/etc/passwd). Allowed roots: ${CWD}.`,
      c3: outside("/etc/hosts"),
      c4: outside(`${CWD}2`),
      c5: outside("/tmp"),
      c6: "The path contains a NUL byte, which no file name can contain.",
    };
    for (const [id, reason] of Object.entries(reasons)) {
      expect(editor.outcome(sessionId, id)).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: reason } }],
      });
    }
    expect(toolResults(turn.calls[1])).toEqual(Object.fromEntries(Object.entries(reasons).map(([id, r]) => [id, `Error: ${r}`])));
    expect(editor.requests()).toEqual([]);
    expect(editor.files.get("/etc/hosts")).toBe("127.0.0.1 localhost");
    editor.close();
  });

  it("accepts paths in the session's additional directories", async () => {
    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(CWD, "dont_ask", { additionalDirectories: ["/work/lib"] });
    editor.files.set("/work/lib/util.ts", "export {};");
    const key = uniqueKey();
    const turn = await editor.turn(sessionId, key, steps(call("c1", "read_file", { path: "/work/lib/./util.ts" })));
    expect(editor.requests("fs/")[0]!.params).toEqual({ sessionId, path: "/work/lib/util.ts" });
    expect(toolResults(turn.calls[1]).c1).toBe("export {};");
    editor.close();
  });
});
