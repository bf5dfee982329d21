/**
 * The permission gate over whole turns: what each mode asks, what each answer
 * lets through later, and how timeouts, cancels, editor errors and sensitive
 * paths end up, all against a scripted model and a scripted editor.
 */
import { describe, expect, it } from "vitest";
import { sleep, TestClient } from "./acp-test-client.js";
import { mockScript, never, offeredTools, ScriptedEditor, select, toolResults, uniqueCwd, uniqueKey, unknownToolResult, withEnv } from "./scripted-editor.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
const steps = (...calls: ReturnType<typeof call>[]) => [{ toolCalls: calls }, { text: "done" }];
const text = (t: string) => ({ type: "content", content: { type: "text", text: t } });

const FOUR_OPTIONS = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow for this session", kind: "allow_always" },
  { optionId: "allow_always", name: "Always allow in this project", kind: "allow_always" },
  { optionId: "reject", name: "Deny", kind: "reject_once" },
];
const SENSITIVE_OPTIONS = [FOUR_OPTIONS[0], FOUR_OPTIONS[3]];

async function setup(mode = "default", cwd = uniqueCwd()) {
  const editor = await ScriptedEditor.open();
  const sessionId = await editor.newSession(cwd, mode);
  return { editor, sessionId, cwd, key: uniqueKey() };
}

const permissionRequests = (editor: ScriptedEditor) => editor.requests("session/request_permission").map((f) => f.params);

describe("what a permission request carries", () => {
  it("asks for an edit with the real diff, the four options and the tool call's id", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    const path = `${cwd}/a.ts`;
    editor.files.set(path, "old\n");
    await editor.turn(sessionId, key, steps(call("call_w", "write_file", { path, content: "new\n" })));
    expect(permissionRequests(editor)).toEqual([
      {
        sessionId,
        toolCall: {
          toolCallId: "call_w",
          title: `Write ${path}`,
          kind: "edit",
          status: "pending",
          content: [{ type: "diff", path, oldText: "old\n", newText: "new\n" }],
          locations: [{ path }],
        },
        options: FOUR_OPTIONS,
      },
    ]);
    // Asked after reading the old text and before writing the new one.
    expect(editor.methods()).toEqual(["fs/read_text_file", "session/request_permission", "fs/write_text_file"]);
    editor.close();
  });

  it("asks for a command with the command line and its working directory", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    await editor.turn(sessionId, key, steps(call("call_t", "terminal", { command: "rm -rf build" })));
    expect(permissionRequests(editor)).toEqual([
      {
        sessionId,
        toolCall: {
          toolCallId: "call_t",
          title: "$ rm -rf build",
          kind: "execute",
          status: "pending",
          content: [text("rm -rf build")],
          locations: [{ path: cwd }],
        },
        options: FOUR_OPTIONS,
      },
    ]);
    expect(editor.methods()).toEqual(["session/request_permission", "terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
    editor.close();
  });
});

describe("permission answers", () => {
  it("allow once lets one edit through and asks again for the next", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    await editor.turn(
      sessionId,
      key,
      steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "a" }), call("w2", "write_file", { path: `${cwd}/a.ts`, content: "b" })),
    );
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "w2"]);
    expect(editor.requests("fs/write_text_file").map((f) => f.params.content)).toEqual(["a", "b"]);
    editor.close();
  });

  it("allow for this session stops edits asking for the rest of the session, but not commands or other sessions", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = () => select("allow_session");
    editor.files.set(`${cwd}/a.ts`, "x = 1\n");
    await mockScript(key, [
      ...steps(call("w1", "write_file", { path: `${cwd}/b.ts`, content: "b" })),
      ...steps(call("p1", "patch", { path: `${cwd}/a.ts`, old_string: "1", new_string: "2" }), call("t1", "terminal", { command: "make" })),
    ]);
    await editor.turn(sessionId, key, null, "first");
    await editor.turn(sessionId, key, null, "second");
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "t1"]);
    expect(editor.files.get(`${cwd}/a.ts`)).toBe("x = 2\n");

    const other = await editor.newSession(cwd);
    await editor.turn(other, uniqueKey(), steps(call("w2", "write_file", { path: `${cwd}/c.ts`, content: "c" })));
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "t1", "w2"]);
    editor.close();
  });

  it("allow for this session still holds when the session is loaded from another connection", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = () => select("allow_session");
    await mockScript(key, [...steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "a" })), ...steps(call("w2", "write_file", { path: `${cwd}/b.ts`, content: "b" }))]);
    await editor.turn(sessionId, key, null, "first");
    editor.close();
    const later = await ScriptedEditor.open();
    await later.client.call("session/load", { sessionId, cwd, mcpServers: [] });
    await later.turn(sessionId, key, null, "second");
    expect(permissionRequests(later)).toEqual([]);
    expect(later.files.get(`${cwd}/b.ts`)).toBe("b");
    later.close();
  });

  it("always allow is remembered for a new session of the same tenant and cwd, not for another tenant or cwd", async () => {
    const cwd = uniqueCwd();
    const alpha = await ScriptedEditor.open();
    alpha.permission = () => select("allow_always");
    const first = await alpha.newSession(cwd);
    await alpha.turn(first, uniqueKey(), steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "a" })));
    expect(permissionRequests(alpha).map((p) => p.toolCall.toolCallId)).toEqual(["w1"]);

    const again = await ScriptedEditor.open();
    const second = await again.newSession(cwd);
    await again.turn(second, uniqueKey(), steps(call("w2", "write_file", { path: `${cwd}/b.ts`, content: "b" })));
    expect(permissionRequests(again)).toEqual([]);
    expect(again.files.get(`${cwd}/b.ts`)).toBe("b");

    const elsewhere = `${cwd}-other`;
    const third = await again.newSession(elsewhere);
    await again.turn(third, uniqueKey(), steps(call("w3", "write_file", { path: `${elsewhere}/c.ts`, content: "c" })));
    expect(permissionRequests(again).map((p) => p.toolCall.toolCallId)).toEqual(["w3"]);

    const beta = await ScriptedEditor.open(undefined, { token: "tok-beta" });
    const fourth = await beta.newSession(cwd);
    await beta.turn(fourth, uniqueKey(), steps(call("w4", "write_file", { path: `${cwd}/d.ts`, content: "d" })));
    expect(permissionRequests(beta).map((p) => p.toolCall.toolCallId)).toEqual(["w4"]);
    for (const editor of [alpha, again, beta]) editor.close();
  });

  it("deny fails the tool, writes nothing and tells the model", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    const path = `${cwd}/a.ts`;
    editor.files.set(path, "keep");
    editor.permission = () => select("reject");
    const turn = await editor.turn(sessionId, key, steps(call("w1", "write_file", { path, content: "lose" })));
    expect(turn.stopReason).toBe("end_turn");
    const reason = `The user denied editing ${path}.`;
    expect(editor.outcome(sessionId, "w1")).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "w1", status: "failed", content: [text(reason)] });
    expect(toolResults(turn.calls[1])).toEqual({ w1: `Error: ${reason}` });
    expect(editor.methods()).toEqual(["fs/read_text_file", "session/request_permission"]);
    expect(editor.files.get(path)).toBe("keep");
    editor.close();
  });

  it("a denied edit cannot be retried through another tool on the same file in the same turn", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    const path = `${cwd}/a.ts`;
    editor.files.set(path, "x = 1\n");
    editor.permission = () => select("reject");
    const turn = await editor.turn(sessionId, key, [
      { toolCalls: [call("w1", "write_file", { path, content: "x = 2\n" })] },
      { toolCalls: [call("p1", "patch", { path: `${cwd}/./a.ts`, old_string: "1", new_string: "2" })] },
      { text: "gave up" },
      ...steps(call("w2", "write_file", { path, content: "x = 3\n" })),
    ]);
    const again = `The user already denied editing ${path} in this turn; do not try it again another way.`;
    expect(editor.outcome(sessionId, "p1")).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "p1", status: "failed", content: [text(again)] });
    expect(toolResults(turn.calls[2])).toEqual({ w1: `Error: The user denied editing ${path}.`, p1: `Error: ${again}` });
    expect(editor.methods()).toEqual(["fs/read_text_file", "session/request_permission", "fs/read_text_file"]);
    expect(editor.files.get(path)).toBe("x = 1\n");
    // The denial holds for the turn only: the next turn asks again.
    editor.permission = () => select("allow_once");
    await editor.turn(sessionId, key, null, "next");
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "w2"]);
    expect(editor.files.get(path)).toBe("x = 3\n");
    editor.close();
  });

  it("an editor that cancels the request (outcome cancelled) denies", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = () => ({ outcome: { outcome: "cancelled" } });
    const turn = await editor.turn(sessionId, key, steps(call("t1", "terminal", { command: "make" })));
    expect(toolResults(turn.calls[1])).toEqual({ t1: "Error: The user denied running `make`." });
    expect(editor.methods()).toEqual(["session/request_permission"]);
    void cwd;
    editor.close();
  });
});

describe("when no answer comes", () => {
  it("denies after the permission timeout", async () => {
    const { editor, sessionId, cwd } = await withEnv({ HERMES_PERMISSION_TIMEOUT_MS: "1000" }, () => setup());
    const path = `${cwd}/a.ts`;
    editor.permission = never;
    const started = Date.now();
    const turn = await editor.turn(sessionId, uniqueKey(), steps(call("w1", "write_file", { path, content: "x" })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(turn.stopReason).toBe("end_turn");
    const reason = `Permission for editing ${path} was denied (no answer within 1 s).`;
    expect(editor.outcome(sessionId, "w1")).toMatchObject({ status: "failed", content: [text(reason)] });
    expect(toolResults(turn.calls[1])).toEqual({ w1: `Error: ${reason}` });
    expect(editor.requests("fs/write_text_file")).toEqual([]);
    // The editor is told to withdraw the dialog nobody waits for any more.
    const asked = editor.client.frames.find((f) => f.method === "session/request_permission")!;
    const withdrawn = editor.client.frames.filter((f) => f.method === "$/cancel_request");
    expect(withdrawn.map((f) => f.params)).toEqual([{ requestId: asked.id }]);
    editor.close();
  });

  it("is withdrawn from the editor that comes back when it timed out while that editor's connection was down", async () => {
    const { editor, sessionId, cwd, key } = await withEnv({ HERMES_PERMISSION_TIMEOUT_MS: "1000" }, () => setup());
    editor.permission = never;
    await mockScript(key, steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" })));
    editor.client.prompt(sessionId, `write [[mock:${key}]]`);
    const asked = await editor.client.next((f) => f.method === "session/request_permission", 10_000, 0);
    editor.close();
    await sleep(1_500);
    // Not re-sent (nobody waits for it), so without a withdrawal the editor would keep showing it.
    const back = await TestClient.ready();
    await back.request("session/resume", { sessionId, cwd });
    const withdrawn = await back.next((f) => f.method === "$/cancel_request", 5_000, 0);
    expect(withdrawn.params).toEqual({ requestId: asked.id });
    expect(back.frames.filter((f) => f.method === "session/request_permission")).toEqual([]);
    back.close();
  });

  it("session/cancel while a permission request is pending ends the turn cancelled and writes nothing", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = never;
    await mockScript(key, steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" })));
    const running = editor.client.prompt(sessionId, `write [[mock:${key}]]`);
    await editor.client.next((f) => f.method === "session/request_permission", 10_000, 0);
    editor.client.notify("session/cancel", { sessionId });
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    expect(editor.outcome(sessionId, "w1")).toMatchObject({ status: "failed", content: [text("Cancelled by the user.")] });
    expect(editor.methods()).toEqual(["fs/read_text_file", "session/request_permission"]);
    const asked = editor.client.frames.find((f) => f.method === "session/request_permission")!;
    await editor.client.next((f) => f.method === "$/cancel_request" && f.params.requestId === asked.id, 5_000, 0);
    editor.close();
  });

  it("an error answer from the editor denies", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = () => {
      throw new Error("dialog crashed");
    };
    const turn = await editor.turn(sessionId, key, steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" })));
    const reason = `Permission for editing ${cwd}/a.ts was denied (the editor could not be asked).`;
    expect(toolResults(turn.calls[1])).toEqual({ w1: `Error: ${reason}` });
    expect(editor.requests("fs/write_text_file")).toEqual([]);
    editor.close();
  });
});

describe("sensitive paths", () => {
  it("always ask, even in dont_ask mode, offering only allow once and deny", async () => {
    const { editor, sessionId, cwd, key } = await setup("dont_ask");
    editor.files.set(`${cwd}/.git/config`, "[core]\n");
    const turn = await editor.turn(
      sessionId,
      key,
      steps(
        call("s1", "write_file", { path: `${cwd}/.env`, content: "TOKEN=1" }),
        call("s2", "patch", { path: `${cwd}/.git/config`, old_string: "[core]", new_string: "[core]\n\tbare = true" }),
        call("s3", "write_file", { path: `${cwd}/keys/id_rsa`, content: "KEY" }),
        call("n1", "write_file", { path: `${cwd}/src/ok.ts`, content: "ok" }),
      ),
    );
    const asked = permissionRequests(editor);
    expect(asked.map((p) => p.toolCall.toolCallId)).toEqual(["s1", "s2", "s3"]);
    for (const params of asked) {
      expect(params.options).toEqual(SENSITIVE_OPTIONS);
      expect(params._meta).toEqual({ hermes: { sensitive: true } });
    }
    expect(Object.values(toolResults(turn.calls[1])).every((r) => !r.startsWith("Error"))).toBe(true);
    expect(editor.files.get(`${cwd}/.env`)).toBe("TOKEN=1");
    editor.close();
  });

  it("still ask after edits were allowed for the session", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    editor.permission = () => select("allow_session");
    await editor.turn(
      sessionId,
      key,
      steps(
        call("n1", "write_file", { path: `${cwd}/a.ts`, content: "a" }),
        call("s1", "write_file", { path: `${cwd}/.env.local`, content: "X=1" }),
        call("s2", "write_file", { path: `${cwd}/.env.local`, content: "X=2" }),
      ),
    );
    // A session answer to a sensitive prompt is not remembered either.
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["n1", "s1", "s2"]);
    editor.close();
  });
});

describe("modes", () => {
  it("read_only offers no edit or execute tools but keeps reading and searching", async () => {
    const { editor, sessionId, cwd, key } = await setup("read_only");
    const turn = await editor.turn(
      sessionId,
      key,
      steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" }), call("t1", "terminal", { command: "ls" })),
    );
    expect(offeredTools(turn.calls[0])).toEqual(["read_file", "search_files", "web_fetch", "todo"]);
    expect(toolResults(turn.calls[1])).toEqual({
      w1: unknownToolResult("write_file", turn.calls[0]),
      t1: unknownToolResult("terminal", turn.calls[0]),
    });
    expect(editor.methods()).toEqual([]);
    editor.close();
  });

  it("default asks for edits and for commands", async () => {
    const { editor, sessionId, cwd, key } = await setup("default");
    await editor.turn(sessionId, key, steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" }), call("t1", "terminal", { command: "ls" })));
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1", "t1"]);
    editor.close();
  });

  it("accept_edits applies edits inside the workspace without asking but asks for commands", async () => {
    const { editor, sessionId, cwd, key } = await setup("accept_edits");
    editor.files.set(`${cwd}/a.ts`, "1");
    await editor.turn(
      sessionId,
      key,
      steps(
        call("w1", "write_file", { path: `${cwd}/b.ts`, content: "x" }),
        call("p1", "patch", { path: `${cwd}/a.ts`, old_string: "1", new_string: "2" }),
        call("t1", "terminal", { command: "ls" }),
      ),
    );
    expect(editor.methods()).toEqual([
      "fs/read_text_file",
      "fs/write_text_file",
      "fs/read_text_file",
      "fs/write_text_file",
      "session/request_permission",
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/output",
      "terminal/release",
    ]);
    expect(permissionRequests(editor)[0].toolCall.toolCallId).toBe("t1");
    editor.close();
  });

  it("dont_ask asks for nothing outside sensitive paths", async () => {
    const { editor, sessionId, cwd, key } = await setup("dont_ask");
    await editor.turn(sessionId, key, steps(call("w1", "write_file", { path: `${cwd}/a.ts`, content: "x" }), call("t1", "terminal", { command: "rm -rf dist" })));
    expect(editor.requests("session/request_permission")).toEqual([]);
    expect(editor.methods()).toEqual([
      "fs/read_text_file",
      "fs/write_text_file",
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/output",
      "terminal/release",
    ]);
    editor.close();
  });

  it("a mode switched mid-session applies from the next turn, announced with current_mode_update", async () => {
    const { editor, sessionId, cwd, key } = await setup("default");
    const write = (id: string) => steps(call(id, "write_file", { path: `${cwd}/a.ts`, content: id }));
    await mockScript(key, [...write("w1"), ...write("w2"), ...write("w3")]);
    await editor.turn(sessionId, key, null, "one");
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1"]);

    const modeUpdate = editor.client.next((f) => f.params?.update?.sessionUpdate === "current_mode_update");
    await editor.client.call("session/set_mode", { sessionId, modeId: "dont_ask" });
    expect((await modeUpdate).params.update).toEqual({ sessionUpdate: "current_mode_update", currentModeId: "dont_ask" });
    await editor.turn(sessionId, key, null, "two");
    expect(permissionRequests(editor).map((p) => p.toolCall.toolCallId)).toEqual(["w1"]);
    expect(editor.files.get(`${cwd}/a.ts`)).toBe("w2");

    await editor.client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/mode read_only" }] });
    const third = await editor.turn(sessionId, key, null, "three");
    expect(offeredTools(third.calls.at(-2))).toEqual(["read_file", "search_files", "web_fetch", "todo"]);
    expect(toolResults(third.calls.at(-1)).w3).toBe(unknownToolResult("write_file", third.calls.at(-2)));
    expect(editor.files.get(`${cwd}/a.ts`)).toBe("w2");
    editor.close();
  });

  it("a model switched mid-session is used from the next model call, announced with config_option_update", async () => {
    const { editor, sessionId, key } = await withEnv({ HERMES_MODELS: "gpt-4o-mini,mock-model-large" }, () => setup());
    await mockScript(key, [{ text: "one" }, { text: "two" }]);
    await editor.turn(sessionId, key, null, "first");
    const update = editor.client.next((f) => f.params?.update?.sessionUpdate === "config_option_update");
    const options = await editor.client.call("session/set_config_option", { sessionId, configId: "model", value: "mock-model-large" });
    expect(options.configOptions.find((o: any) => o.id === "model").currentValue).toBe("mock-model-large");
    expect((await update).params.update.configOptions.find((o: any) => o.id === "model").currentValue).toBe("mock-model-large");
    const turn = await editor.turn(sessionId, key, null, "second");
    expect(turn.calls.map((c) => c.body.model)).toEqual(["gpt-4o-mini", "mock-model-large"]);
    editor.close();
  });
});
