/**
 * `session_search` inside workerd: turns feed the FTS5 index in D1 after they
 * end; the tool and `GET /v1/search` find earlier sessions of the same tenant,
 * never the asking session, never another tenant's, never a deleted one.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_SNIPPET_CHARS } from "../../src/db/snippet.js";
import { sleep } from "./acp-test-client.js";
import { mockCalls, mockScript, ScriptedEditor, toolResults, uniqueCwd, uniqueKey, withEnv } from "./scripted-editor.js";
import { eventually, hits, search, searchCall, sessionSaying, uniqueWord, type Hit } from "./search-client.js";

describe("session_search", () => {
  it("finds a word from an earlier session, in the user's and the agent's messages, with title, cwd and a snippet", async () => {
    const word = uniqueWord();
    const agentWord = uniqueWord();
    const earlier = await sessionSaying(`The ${word} crashes on start`, `I fixed the ${agentWord} in the loader.`);
    await eventually(word, (found) => found.length === 1);
    await eventually(agentWord, (found) => found.length === 1);

    const now = await ScriptedEditor.open();
    const sessionId = await now.newSession(uniqueCwd());
    const turn = await now.turn(sessionId, uniqueKey(), searchCall({ query: word }));
    const read = toolResults(turn.calls[1]).s1!;
    expect(read).toMatch(new RegExp(`^1 earlier session match "${word}" \\(best first\\):\\n1\\. `));
    expect(read).toContain(`session ${earlier.sessionId}, cwd ${earlier.cwd}`);
    const rawOutput = now.outcome(sessionId, "s1").rawOutput;
    expect(rawOutput.results).toEqual([
      {
        sessionId: earlier.sessionId,
        title: expect.stringMatching(new RegExp(`^The ${word} crashes on start`)),
        cwd: earlier.cwd,
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        snippet: expect.stringContaining(`**${word}**`),
      },
    ]);
    expect(now.toolUpdates(sessionId, "s1")[0]).toMatchObject({ kind: "search", title: `Search earlier sessions: ${word}` });
    const byAgent = await hits(agentWord);
    expect(byAgent.map((h) => h.sessionId)).toEqual([earlier.sessionId]);
    expect(byAgent[0]!.snippet).toContain(`**${agentWord}**`);
    earlier.editor.close();
    now.close();
  });

  it("never returns the asking session, and indexes later turns of a session too", async () => {
    const word = uniqueWord();
    const later = uniqueWord();
    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(uniqueCwd());
    // One script for the session: the mock picks it by the first marker in the history.
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok" }, ...searchCall({ query: word }), { text: "sure" }]);
    await editor.turn(sessionId, key, null, `remember ${word}`);
    await eventually(word, (found) => found.some((h) => h.sessionId === sessionId));
    const turn = await editor.turn(sessionId, key, null, `second turn, ${word}`);
    expect(toolResults(turn.calls[2]).s1).toBe(`No earlier session mentions "${word}".`);
    await editor.turn(sessionId, key, null, `third turn says ${later}`);
    await eventually(later, (found) => found.length === 1 && found[0]!.sessionId === sessionId);
    editor.close();
  });

  it("never returns to a sub-agent the sessions it was delegated from, at any depth", async () => {
    const word = uniqueWord();
    const other = await sessionSaying(`another session on ${word}`, "ok");
    await withEnv({ HERMES_MAX_SPAWN_DEPTH: "2" }, async () => {
      const editor = await ScriptedEditor.open();
      const rootId = await editor.newSession(uniqueCwd());
      const grandchild = uniqueKey("grandchild");
      await mockScript(grandchild, [...searchCall({ query: word })]);
      const orchestrator = uniqueKey("orchestrator");
      await mockScript(orchestrator, [
        { toolCalls: [{ id: "s1", name: "session_search", arguments: { query: word } }] },
        { toolCalls: [{ id: "inner", name: "delegate_task", arguments: { goal: `search [[mock:${grandchild}]]` } }] },
        { text: "searched" },
      ]);
      const key = uniqueKey();
      await mockScript(key, [
        { text: "ok" },
        { toolCalls: [{ id: "d1", name: "delegate_task", arguments: { goal: `search [[mock:${orchestrator}]]`, role: "orchestrator" } }] },
        { text: "done" },
      ]);
      await editor.turn(rootId, key, null, `the root works on ${word}`);
      await eventually(word, (found) => found.some((h) => h.sessionId === rootId) && found.some((h) => h.sessionId === other.sessionId));
      await editor.turn(rootId, key, null, "delegate a search");
      const expected = new RegExp(`^1 earlier session match "${word}" \\(best first\\):\\n1\\. .* session ${other.sessionId},`);
      const byOrchestrator = toolResults((await mockCalls(orchestrator))[1]).s1!;
      const byGrandchild = toolResults((await mockCalls(grandchild))[1]).s1!;
      expect(byOrchestrator).toMatch(expected);
      expect(byGrandchild).toMatch(expected);
      expect(byOrchestrator + byGrandchild).not.toContain(rootId);
      editor.close();
    });
    other.editor.close();
  });

  it("keeps tenants apart: another tenant's sessions are never found", async () => {
    const word = uniqueWord();
    const alpha = await sessionSaying(`alpha works on ${word}`, "ok");
    const beta = await sessionSaying(`beta works on ${word}`, "ok", { token: "tok-beta" });
    expect((await eventually(word, (found) => found.length > 0)).map((h) => h.sessionId)).toEqual([alpha.sessionId]);
    expect((await eventually(word, (found) => found.length > 0, "tok-beta")).map((h) => h.sessionId)).toEqual([beta.sessionId]);

    const betaNow = await ScriptedEditor.open(undefined, { token: "tok-beta" });
    const sessionId = await betaNow.newSession(uniqueCwd());
    const turn = await betaNow.turn(sessionId, uniqueKey(), searchCall({ query: word }));
    expect(betaNow.outcome(sessionId, "s1").rawOutput.results.map((h: Hit) => h.sessionId)).toEqual([beta.sessionId]);
    expect(toolResults(turn.calls[1]).s1).not.toContain(alpha.sessionId);
    for (const c of [alpha.editor, beta.editor, betaNow]) c.close();
  });

  it("forgets a session deleted with session/delete", async () => {
    const word = uniqueWord();
    const kept = await sessionSaying(`keep ${word}`, "ok");
    const doomed = await sessionSaying(`delete ${word}`, `deleted ${word} too`);
    await eventually(word, (found) => found.length === 2);
    expect(await doomed.editor.client.call("session/delete", { sessionId: doomed.sessionId })).toEqual({});
    expect((await hits(word)).map((h) => h.sessionId)).toEqual([kept.sessionId]);
    kept.editor.close();
    doomed.editor.close();
  });

  it("bounds the limit to 1–20 (default 5), in the tool and over REST", async () => {
    const word = uniqueWord();
    const sessions = [];
    for (let i = 0; i < 6; i++) sessions.push(await sessionSaying(`note ${i} about ${word}`, "ok"));
    // Each session's turn is fed on its own schedule: wait until all six are in.
    for (let i = 0; i < 100 && (await hits(word, "tok-alpha", 20)).length < 6; i++) await sleep(50);
    expect(await hits(word, "tok-alpha", 20)).toHaveLength(6);
    expect(await hits(word)).toHaveLength(5);
    expect(await hits(word, "tok-alpha", 2)).toHaveLength(2);

    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(uniqueCwd());
    const key = uniqueKey();
    await mockScript(key, [
      {
        toolCalls: [
          { id: "two", name: "session_search", arguments: { query: word, limit: 2 } },
          { id: "zero", name: "session_search", arguments: { query: word, limit: 0 } },
          { id: "many", name: "session_search", arguments: { query: word, limit: 21 } },
          { id: "empty", name: "session_search", arguments: { query: "  " } },
        ],
      },
      { text: "done" },
    ]);
    const turn = await editor.turn(sessionId, key, null);
    const read = toolResults(turn.calls[1]);
    expect(read.two).toMatch(new RegExp(`^2 earlier sessions match "${word}"`));
    expect(read.zero).toMatch(/^Error: Invalid arguments for session_search: limit: /);
    expect(read.many).toMatch(/^Error: Invalid arguments for session_search: limit: /);
    expect(read.empty).toMatch(/^Error: Invalid arguments for session_search: query: /);
    for (const s of sessions) s.editor.close();
    editor.close();
  });

  it("keeps snippets short around the match when the message holds a long unbroken run (a hash, base64, minified code)", async () => {
    const word = uniqueWord();
    const blob = "Q".repeat(6_000);
    const after = await sessionSaying(`error ${word} ${blob}`, "ok");
    const before = await sessionSaying(`${blob} then ${word} failed`, "ok");
    const found = await eventually(word, (f) => f.length === 2);
    for (const hit of found) {
      expect(hit.snippet.length).toBeLessThanOrEqual(MAX_SNIPPET_CHARS + 2);
      expect(hit.snippet).toContain(`**${word}**`);
    }
    after.editor.close();
    before.editor.close();
  });

  it.each([
    ["no q", "limit=5"],
    ["an empty q", "q=%20%20"],
    ["limit 0", "q=x&limit=0"],
    ["limit 21", "q=x&limit=21"],
    ["a non-numeric limit", "q=x&limit=lots"],
    ["a fractional limit", "q=x&limit=2.5"],
  ])("GET /v1/search answers 400 for %s", async (_name, query) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid query/) });
  });

  it("GET /v1/search needs a token, and a query of only punctuation finds nothing", async () => {
    expect((await SELF.fetch("http://hermes.test/v1/search?q=x")).status).toBe(401);
    expect(await hits('"** ( * : -')).toEqual([]);
    // FTS5 operators are words like any other: no syntax error (hits() expects 200).
    await hits('"** AND (');
  });
});
