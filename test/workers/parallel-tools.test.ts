/**
 * Parallel tool calls through the whole session: the reads of one model
 * message reach the editor at once, an edit of the same message waits for
 * them, and the model reads every result in the order it asked.
 */
import { describe, expect, it } from "vitest";
import { ScriptedEditor, toolResults, uniqueKey } from "./scripted-editor.js";

const CWD = "/work/parallel";
const READ_DELAY_MS = 1_000;
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

/** Answers every read after `READ_DELAY_MS`, logging when each request arrived and was answered (and at what time, in `times`). */
function slowReads(editor: ScriptedEditor, log: string[], times: number[] = []): void {
  editor.client.onRequest("fs/read_text_file", async (p: { path: string }) => {
    log.push(`read ${p.path}`);
    times.push(Date.now());
    await new Promise((r) => setTimeout(r, READ_DELAY_MS));
    log.push(`answered ${p.path}`);
    times.push(Date.now());
    return { content: editor.files.get(p.path) ?? "" };
  });
}

describe("parallel tool calls", () => {
  it("runs three reads the editor answers after 1 s each in about 1 s, and answers the model in its order", async () => {
    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(CWD, "dont_ask");
    const paths = ["a", "b", "c"].map((name) => `${CWD}/${name}.ts`);
    paths.forEach((path, i) => editor.files.set(path, `file ${i}`));
    const log: string[] = [];
    const times: number[] = [];
    slowReads(editor, log, times);
    const turn = await editor.turn(sessionId, uniqueKey(), [{ toolCalls: paths.map((path, i) => call(`r${i}`, "read_file", { path })) }, { text: "done" }]);
    // From the editor's first read request to its last answer: the reads' share of the turn, whatever the model calls around them take.
    const seconds = (Math.max(...times) - Math.min(...times)) / 1000;

    expect(turn.stopReason).toBe("end_turn");
    // All three were asked before the first answer: they ran at once, not in turn (which takes at least 3 s).
    expect(log.slice(0, 3)).toEqual(paths.map((p) => `read ${p}`));
    expect(seconds).toBeGreaterThanOrEqual(READ_DELAY_MS / 1000);
    expect(seconds).toBeLessThan(2.5);
    const sent = turn.calls[1].body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(sent.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(["r0", "r1", "r2"]);
    expect(Object.values(toolResults(turn.calls[1]))).toEqual(["file 0", "file 1", "file 2"]);
    // The editor sees each call announced in the model's order, and every one completed.
    const updates = editor.toolUpdates(sessionId);
    expect(updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId)).toEqual(["r0", "r1", "r2"]);
    for (const id of ["r0", "r1", "r2"]) expect(editor.outcome(sessionId, id).status).toBe("completed");
    editor.close();
  });

  it("runs an edit of the same message after every read has been answered", async () => {
    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(CWD, "dont_ask");
    const path = `${CWD}/x.ts`;
    editor.files.set(path, "old");
    const log: string[] = [];
    slowReads(editor, log);
    editor.client.onRequest("fs/write_text_file", (p: { path: string; content: string }) => {
      log.push(`write ${p.path}`);
      editor.files.set(p.path, p.content);
      return {};
    });
    const turn = await editor.turn(sessionId, uniqueKey(), [
      { toolCalls: [call("w", "write_file", { path, content: "new" }), call("r1", "read_file", { path }), call("r2", "read_file", { path })] },
      { text: "done" },
    ]);

    expect(turn.stopReason).toBe("end_turn");
    // write_file reads the file for its diff, after both reads were answered, then writes.
    const both = [`read ${path}`, `read ${path}`, `answered ${path}`, `answered ${path}`];
    expect(log).toEqual([...both, `read ${path}`, `answered ${path}`, `write ${path}`]);
    const sent = turn.calls[1].body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(sent.map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content])).toEqual([
      ["w", expect.stringContaining(path)],
      ["r1", "old"],
      ["r2", "old"],
    ]);
    expect(editor.files.get(path)).toBe("new");
    editor.close();
  });
});
