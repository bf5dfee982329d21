/**
 * `session_search` and `session/fork`: a fork holds a copy of its source's
 * history, indexed under the fork's own id. Neither finds the other through
 * that shared history (it is the asker's own, as its own session's messages
 * are), each finds what the other said on its own, and a tenant-wide search
 * (REST) lists both, each under its own id: both hold the message.
 */
import { describe, expect, it } from "vitest";
import { mockScript, ScriptedEditor, toolResults, uniqueCwd, uniqueKey } from "./scripted-editor.js";
import { eventually, hits, sessionSaying, uniqueWord } from "./search-client.js";

const searches = (...queries: string[]) => ({
  toolCalls: queries.map((query, i) => ({ id: `q${i}`, name: "session_search", arguments: { query } })),
});

describe("session_search across a fork", () => {
  it("finds neither a fork nor its source through their shared history, from its first turn on; each finds what the other says after", async () => {
    const shared = uniqueWord();
    const sharedReply = uniqueWord();
    const forkOnly = uniqueWord();
    const sourceOnly = uniqueWord();
    const editor = await ScriptedEditor.open();
    const source = await editor.newSession(uniqueCwd());
    // The fork's history starts with the source's marker, so both sessions' model calls take this one script, in turn order.
    const key = uniqueKey();
    await mockScript(key, [
      { text: `the answer is ${sharedReply}` },
      searches(shared, sharedReply),
      { text: "fork searched" },
      searches(shared, sharedReply, forkOnly),
      { text: "source searched" },
      searches(sourceOnly),
      { text: "fork searched again" },
    ]);
    await editor.turn(source, key, null, `we discuss ${shared}`);
    await eventually(sharedReply, (found) => found.some((h) => h.sessionId === source));
    // Another session whose agent said the very same message: not the asker's lineage, so it stays findable.
    const unrelated = await sessionSaying(`unrelated ${uniqueWord()}`, `the answer is ${sharedReply}`);
    await eventually(sharedReply, (found) => found.some((h) => h.sessionId === unrelated.sessionId));

    const { sessionId: fork } = await editor.client.call("session/fork", { sessionId: source, cwd: uniqueCwd(), mcpServers: [] });
    const forkFirst = toolResults((await editor.turn(fork, key, null, `the fork works on ${forkOnly}`)).calls.at(-1));
    expect(forkFirst.q0).toBe(`No earlier session mentions "${shared}".`);
    expect(forkFirst.q1).toContain(`session ${unrelated.sessionId},`);
    expect(forkFirst.q1).not.toContain(source);
    await eventually(forkOnly, (found) => found.some((h) => h.sessionId === fork));

    const sourceNext = toolResults((await editor.turn(source, key, null, `the source goes on with ${sourceOnly}`)).calls.at(-1));
    expect(sourceNext.q0).toBe(`No earlier session mentions "${shared}".`);
    expect(sourceNext.q1).toMatch(new RegExp(`^1 earlier session match .*session ${unrelated.sessionId},`, "s"));
    expect(sourceNext.q2).toMatch(new RegExp(`^1 earlier session match .*session ${fork},`, "s"));
    await eventually(sourceOnly, (found) => found.some((h) => h.sessionId === source));

    const forkNext = toolResults((await editor.turn(fork, key, null, "and again")).calls.at(-1));
    expect(forkNext.q0).toMatch(new RegExp(`^1 earlier session match .*session ${source},`, "s"));

    // Tenant-wide, the shared message is in both sessions, each listed once under its own id.
    const everywhere = await hits(shared);
    expect(everywhere.map((h) => h.sessionId).sort()).toEqual([source, fork].sort());
    expect(everywhere.every((h) => h.snippet.includes(`**${shared}**`))).toBe(true);
    expect((await hits(forkOnly)).map((h) => h.sessionId)).toEqual([fork]);
    editor.close();
    unrelated.editor.close();
  });
});
