/**
 * Project memory end to end inside workerd: the `memory` tool against D1, the
 * frozen snapshot in the system prompt, `/memory`, the REST API, and the
 * tenant and project boundaries, with a scripted model and a scripted editor.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/db/memory-store.js";
import { applyMemoryEdit } from "../../src/tools/memory-entries.js";
import { allOfferedTools, mockCalls, mockScript, ScriptedEditor, toolResults, uniqueCwd, uniqueKey } from "./scripted-editor.js";

const call = (id: string, args: Record<string, unknown>) => ({ id, name: "memory", arguments: args });
const steps = (...calls: ReturnType<typeof call>[]) => [{ toolCalls: calls }, { text: "noted" }];

function rest(path: string, init: { token?: string; method?: string; body?: string } = {}): Promise<Response> {
  return SELF.fetch(`http://hermes.test${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${init.token ?? "tok-alpha"}`, "Content-Type": "application/json" },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
}

const memoryOf = async (cwd: string, token?: string) =>
  (await (await rest(`/v1/memory?cwd=${encodeURIComponent(cwd)}`, token ? { token } : {})).json()) as { cwd: string; entries: string[]; characters: number };

const put = (cwd: string, body: unknown, token?: string) =>
  rest(`/v1/memory?cwd=${encodeURIComponent(cwd)}`, { method: "PUT", body: typeof body === "string" ? body : JSON.stringify(body), ...(token ? { token } : {}) });

async function setup(options: { cwd?: string; token?: string; mode?: string } = {}) {
  const editor = await ScriptedEditor.open(undefined, options.token ? { token: options.token } : {});
  const cwd = options.cwd ?? uniqueCwd();
  const sessionId = await editor.newSession(cwd, options.mode);
  return { editor, sessionId, cwd, key: uniqueKey() };
}

/** The system prompt a recorded model call was sent. */
const systemOf = (call: any): string => call.body.messages[0].content;

describe("the memory tool", () => {
  it("adds, replaces and removes entries, and the model reads the memory as it now is", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    const turn = await editor.turn(
      sessionId,
      key,
      steps(
        call("m1", { action: "add", content: "Tests run with `npm test`." }),
        call("m2", { action: "add", content: "The API lives in src/http." }),
        call("m3", { action: "replace", old_text: "src/http", content: "The API lives in src/api." }),
        call("m4", { action: "remove", old_text: "npm test" }),
      ),
    );
    expect(turn.stopReason).toBe("end_turn");
    const read = toolResults(turn.calls[1]);
    expect(read.m1).toBe("Project memory updated (1 entry, 26 of 4,000 characters). Later sessions see it in their system prompt.\n- Tests run with `npm test`.");
    expect(read.m3).toContain("- Tests run with `npm test`.\n- The API lives in src/api.");
    expect(read.m4).toBe("Project memory updated (1 entry, 25 of 4,000 characters). Later sessions see it in their system prompt.\n- The API lives in src/api.");
    expect(editor.outcome(sessionId, "m4")).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "- The API lives in src/api." } }] });
    expect(editor.toolUpdates(sessionId, "m1")[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "edit", title: "Remember for this project" });
    expect(await memoryOf(cwd)).toEqual({ cwd, entries: ["The API lives in src/api."], characters: 25 });
    editor.close();
  });

  it("refuses an ambiguous or missing old_text with the candidates, and leaves the memory as it was", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    expect((await put(cwd, { entries: ["Use pnpm in web/", "Use npm at the root", "Deploy with wrangler"] })).status).toBe(200);
    const turn = await editor.turn(
      sessionId,
      key,
      steps(call("amb", { action: "remove", old_text: "npm" }), call("none", { action: "replace", old_text: "yarn", content: "x" }), call("bare", { action: "remove" })),
    );
    const read = toolResults(turn.calls[1]);
    expect(read.amb).toBe('Error: "npm" is in 2 entries; give `old_text` that only one of them contains. Candidates:\n- Use pnpm in web/\n- Use npm at the root');
    expect(read.none).toBe('Error: No memory entry contains "yarn".\nCurrent entries:\n- Use pnpm in web/\n- Use npm at the root\n- Deploy with wrangler');
    expect(read.bare).toMatch(/^Error: `old_text` is required[\s\S]*- Deploy with wrangler$/);
    expect(editor.outcome(sessionId, "amb")).toMatchObject({ status: "failed" });
    expect((await memoryOf(cwd)).entries).toEqual(["Use pnpm in web/", "Use npm at the root", "Deploy with wrangler"]);
    editor.close();
  });

  it("refuses to go over 4,000 characters and asks the model to consolidate", async () => {
    const { editor, sessionId, cwd, key } = await setup();
    const big = "x".repeat(3_995);
    expect((await put(cwd, { entries: [big] })).status).toBe(200);
    const turn = await editor.turn(sessionId, key, steps(call("over", { action: "add", content: "one more fact" })));
    expect(toolResults(turn.calls[1]).over).toMatch(/^Error: That would make the project memory 4,008 characters, over its 4,000-character bound\. Consolidate first/);
    expect((await memoryOf(cwd)).entries).toEqual([big]);
    editor.close();
  });

  it("is not offered in read_only mode, and a call to it there changes nothing", async () => {
    const { editor, sessionId, cwd, key } = await setup({ mode: "read_only" });
    const turn = await editor.turn(sessionId, key, steps(call("ro", { action: "add", content: "sneaky" })));
    expect(allOfferedTools(turn.calls[0])).not.toContain("memory");
    expect(allOfferedTools(turn.calls[0])).toContain("session_search");
    expect(toolResults(turn.calls[1]).ro).toMatch(/^Error: Unknown tool "memory"/);
    expect((await memoryOf(cwd)).entries).toEqual([]);
    editor.close();
  });
});

describe("memory in the system prompt", () => {
  it("is a frozen snapshot: a new session sees an edit, the running session only after a compaction", async () => {
    const cwd = uniqueCwd();
    const first = await setup({ cwd });
    await mockScript(first.key, [
      { toolCalls: [call("m1", { action: "add", content: "The build needs Node 20." })] },
      { text: "remembered" },
      { text: "second turn" },
      { text: "Summary: the user asked about the build." },
      { text: "after compaction" },
    ]);
    await first.editor.turn(first.sessionId, first.key, null, "remember this");
    await first.editor.turn(first.sessionId, first.key, null, "and now?");
    let calls = await mockCalls(first.key);
    expect(systemOf(calls[0])).not.toContain("Project memory");
    // The same session, a later turn: the prefix is unchanged, the edit is not in it yet.
    expect(systemOf(calls[2])).toBe(systemOf(calls[0]));

    const second = await setup({ cwd });
    const turn = await second.editor.turn(second.sessionId, second.key, [{ text: "hi" }]);
    expect(systemOf(turn.calls[0])).toContain(
      "Project memory (what earlier sessions in this project kept; keep it current with the memory tool):\n- The build needs Node 20.",
    );

    await first.editor.turn(first.sessionId, first.key, null, "/compress");
    await first.editor.turn(first.sessionId, first.key, null, "and after compaction?");
    calls = await mockCalls(first.key);
    expect(calls).toHaveLength(5);
    expect(systemOf(calls[4])).toContain("- The build needs Node 20.");
    first.editor.close();
    second.editor.close();
  });

  it("belongs to one tenant and one project", async () => {
    const cwd = uniqueCwd();
    expect((await put(cwd, { entries: ["alpha's secret convention"] })).status).toBe(200);
    const beta = await setup({ cwd, token: "tok-beta" });
    const betaTurn = await beta.editor.turn(beta.sessionId, beta.key, [{ text: "hi" }]);
    expect(systemOf(betaTurn.calls[0])).not.toContain("alpha's secret convention");
    expect(await memoryOf(cwd, "tok-beta")).toEqual({ cwd, entries: [], characters: 0 });

    const elsewhere = await setup({ cwd: `${cwd}-other` });
    const otherTurn = await elsewhere.editor.turn(elsewhere.sessionId, elsewhere.key, [{ text: "hi" }]);
    expect(systemOf(otherTurn.calls[0])).not.toContain("Project memory");

    const same = await setup({ cwd });
    const sameTurn = await same.editor.turn(same.sessionId, same.key, [{ text: "hi" }]);
    expect(systemOf(sameTurn.calls[0])).toContain("- alpha's secret convention");
    for (const s of [beta, elsewhere, same]) s.editor.close();
  });
});

describe("/memory", () => {
  it("shows the project's memory as stored now, without calling the model", async () => {
    const { editor, sessionId, cwd } = await setup();
    let res = await editor.client.prompt(sessionId, "/memory").response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(editor.client.agentText(sessionId)).toBe(`No project memory yet for ${cwd}. The agent adds entries with its memory tool.`);
    await put(cwd, { entries: ["Lint with `npm run lint`", "Prefer small PRs"] });
    const from = editor.client.frames.length;
    res = await editor.client.prompt(sessionId, "/memory").response;
    const reply = editor.client.frames
      .slice(from)
      .filter((f) => f.params?.update?.sessionUpdate === "agent_message_chunk")
      .map((f) => f.params.update.content.text)
      .join("");
    expect(reply).toBe(`Project memory for ${cwd} (2 entries, 40 of 4,000 characters):\n- Lint with \`npm run lint\`\n- Prefer small PRs`);
    editor.close();
  });
});

describe("GET and PUT /v1/memory", () => {
  it("replaces and returns { cwd, entries, characters }", async () => {
    const cwd = uniqueCwd();
    expect(await memoryOf(cwd)).toEqual({ cwd, entries: [], characters: 0 });
    const res = await put(cwd, { entries: [" first ", "second"] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ cwd, entries: ["first", "second"], characters: 11 });
    expect(await memoryOf(cwd)).toEqual({ cwd, entries: ["first", "second"], characters: 11 });
    expect(await (await put(cwd, { entries: [] })).json()).toEqual({ cwd, entries: [], characters: 0 });
  });

  it.each([
    ["not JSON", "{entries:", -32700],
    ["no entries", {}, -32602],
    ["entries not an array", { entries: "one" }, -32602],
    ["a non-string entry", { entries: ["ok", 3] }, -32602],
    ["an empty entry", { entries: ["ok", "   "] }, -32602],
    ["over 4,000 characters", { entries: ["x".repeat(2_000), "y".repeat(2_001)] }, -32602],
    ["the same entry twice", { entries: ["twice", " twice"] }, -32602],
    ["over 200 entries", { entries: Array.from({ length: 201 }, (_, i) => `e${i}`) }, -32602],
    ["an unknown field", { entries: [], extra: true }, -32602],
  ])("answers 400 for a body with %s and keeps the memory", async (_name, body, code) => {
    const cwd = uniqueCwd();
    await put(cwd, { entries: ["kept"] });
    const res = await put(cwd, body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: number; message: string } };
    expect(json.error).toMatchObject({ code, message: expect.any(String) });
    expect((await memoryOf(cwd)).entries).toEqual(["kept"]);
  });

  it.each([
    ["without cwd", "/v1/memory"],
    ["with a relative cwd", "/v1/memory?cwd=src"],
    ["with an empty cwd", "/v1/memory?cwd="],
  ])("answers 400 %s, for GET and PUT", async (_name, path) => {
    for (const method of ["GET", "PUT"]) {
      const res = await rest(path, { method, ...(method === "PUT" ? { body: JSON.stringify({ entries: [] }) } : {}) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: -32602, data: expect.arrayContaining([expect.objectContaining({ path: ["cwd"] })]) });
    }
  });

  it("needs a token and keeps tenants apart", async () => {
    const cwd = uniqueCwd();
    await put(cwd, { entries: ["alpha only"] });
    expect((await SELF.fetch(`http://hermes.test/v1/memory?cwd=${encodeURIComponent(cwd)}`)).status).toBe(401);
    expect((await put(cwd, { entries: ["beta's"] }, "tok-beta")).status).toBe(200);
    expect((await memoryOf(cwd)).entries).toEqual(["alpha only"]);
    expect((await memoryOf(cwd, "tok-beta")).entries).toEqual(["beta's"]);
  });
});

describe("concurrent edits", () => {
  it("lose nothing: edits of one project from many sessions at once all land", async () => {
    const cwd = uniqueCwd();
    const store = new MemoryStore(env.DB);
    const facts = Array.from({ length: 6 }, (_, i) => `fact ${i}`);
    await Promise.all(facts.map((content) => store.edit("alpha", cwd, (entries) => applyMemoryEdit(entries, { action: "add", content }))));
    expect((await store.get("alpha", cwd)).entries.sort()).toEqual(facts);
    expect((await store.get("alpha", cwd)).version).toBe(6);
  });
});
