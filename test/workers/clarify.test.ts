/**
 * `clarify` inside workerd: the model asks, the scripted editor answers the
 * `elicitation/create` request (or never does), and the model reads the answer.
 */
import { describe, expect, it } from "vitest";
import { allOfferedTools, ELICIT_CAPS, FULL_CAPS, mockScript, never, ScriptedEditor, toolResults, uniqueCwd, uniqueKey } from "./scripted-editor.js";

const ask = (id: string, args: Record<string, unknown>) => ({ id, name: "clarify", arguments: args });
const steps = (...calls: ReturnType<typeof ask>[]) => [{ toolCalls: calls }, { text: "thanks" }];
const text = (t: string) => ({ type: "content", content: { type: "text", text: t } });
const DB_QUESTION = { question: "Which database should the cache use?", choices: ["Postgres", "SQLite"] };

async function setup(caps: Record<string, unknown> = ELICIT_CAPS, mode?: string) {
  const editor = await ScriptedEditor.open(caps);
  const sessionId = await editor.newSession(uniqueCwd(), mode);
  return { editor, sessionId, key: uniqueKey() };
}

const elicitations = (editor: ScriptedEditor) => editor.requests("elicitation/").map((f) => f.params);

describe("clarify", () => {
  it("asks with the choices in form mode, tied to the session and the tool call, and the model reads the chosen answer", async () => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = () => ({ action: "accept", content: { answer: "SQLite" } });
    const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
    expect(turn.stopReason).toBe("end_turn");
    expect(elicitations(editor)).toEqual([
      {
        mode: "form",
        sessionId,
        toolCallId: "q1",
        message: "Which database should the cache use?",
        requestedSchema: {
          type: "object",
          properties: {
            answer: { type: "string", title: "Answer", enum: ["Postgres", "SQLite"] },
            other: { type: "string", title: "Other", description: expect.any(String) },
          },
          required: ["answer"],
        },
      },
    ]);
    expect(toolResults(turn.calls[1])).toEqual({ q1: "The user answered: SQLite" });
    expect(editor.toolUpdates(sessionId, "q1")[0]).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Asking: Which database should the cache use?",
      kind: "other",
    });
    expect(editor.outcome(sessionId, "q1")).toMatchObject({ status: "completed", content: [text("SQLite")] });
    editor.close();
  });

  it("asks for free text without choices, and passes on the free text added to a choice", async () => {
    const { editor, sessionId, key } = await setup();
    const answers = [{ action: "accept", content: { answer: "hermes-cache" } }, { action: "accept", content: { answer: "Postgres", other: "but only in production" } }];
    editor.elicit = () => answers.shift();
    const turn = await editor.turn(sessionId, key, steps(ask("free", { question: "What should the package be called?" }), ask("both", DB_QUESTION)));
    expect(elicitations(editor)[0].requestedSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string", title: "Answer", minLength: 1 } },
      required: ["answer"],
    });
    expect(toolResults(turn.calls[1])).toEqual({
      free: "The user answered: hermes-cache",
      both: "The user answered: Postgres\nThey added: but only in production",
    });
    expect(editor.outcome(sessionId, "both")).toMatchObject({ status: "completed", content: [text("Postgres\nbut only in production")] });
    editor.close();
  });

  it.each([
    ["declines", "decline", /^The user declined to answer\./],
    ["cancels the form", "cancel", /^The user dismissed the question without answering\./],
  ])("tells the model when the user %s", async (_name, action, expected) => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = () => ({ action });
    const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
    expect(turn.stopReason).toBe("end_turn");
    expect(toolResults(turn.calls[1]).q1).toMatch(expected);
    expect(editor.outcome(sessionId, "q1")).toMatchObject({ status: "completed", content: [text(`Not answered (${action}).`)] });
    editor.close();
  });

  it("cuts an answer over 16 Ki characters (well under the frame limit) to the bound, marked, for the model, the editor and history", async () => {
    const { editor, sessionId, key } = await setup();
    const pasted = Array.from({ length: 3_000 }, (_, i) => `log line ${i}`).join("\n"); // 40,889 characters
    editor.elicit = () => ({ action: "accept", content: { answer: pasted, unasked: "u".repeat(5_000) }, _meta: { note: "m".repeat(5_000) } });
    const turn = await editor.turn(sessionId, key, [...steps(ask("q1", { question: "Paste the failing log?" })), { text: "next turn" }]);
    expect(turn.stopReason).toBe("end_turn");
    const read = toolResults(turn.calls[1]).q1!;
    expect(read.length).toBeLessThan(16_384 + 300);
    expect(read).toMatch(/^The user answered: log line 0\nlog line 1\n/);
    expect(read).toMatch(/\n\n\[Truncated: The answer is 40,889 characters long; 24,513 more characters not included \(limit 16,384\)\. If you need the rest, ask the user to put it in a file you can read\.\]$/);
    const outcome = editor.outcome(sessionId, "q1");
    expect(outcome).toMatchObject({ status: "completed", rawOutput: { action: "accept", truncated: { characters: 40_889, omitted: 24_513 } } });
    expect(outcome.content[0].content.text).toMatch(/\n… 24,513 more characters not passed on \(the answer is 40,889 characters; limit 16,384\)$/);
    // Everything the call sent the editor (and the session keeps) is bounded; nothing the form did not ask for is kept.
    expect(JSON.stringify(editor.toolUpdates(sessionId, "q1")).length).toBeLessThan(3 * 16_384 + 2_000);
    expect(JSON.stringify(outcome.rawOutput)).not.toContain("unasked");
    // The next turn's model call carries the same bounded result in its history.
    const next = await editor.turn(sessionId, key, null);
    expect(next.calls[2].body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === "q1").content).toBe(read);
    editor.close();
  });

  it("gives the model a precise tool error for a malformed answer, and the turn goes on", async () => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = () => ({ action: "accept", content: { answer: 42 } });
    const turn = await editor.turn(sessionId, key, steps(ask("q1", { question: "How many?" })));
    expect(turn.stopReason).toBe("end_turn");
    expect(toolResults(turn.calls[1]).q1).toBe("Error: The editor accepted the question but its answer is not usable (result.content.answer: the answer is not text).");
    expect(editor.outcome(sessionId, "q1")).toMatchObject({ status: "failed" });
    editor.close();
  });

  it("session/cancel while the question is open ends the turn cancelled and withdraws the question with $/cancel_request", async () => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = never;
    await mockScript(key, steps(ask("q1", DB_QUESTION)));
    const running = editor.client.prompt(sessionId, `decide [[mock:${key}]]`);
    const asked = await editor.client.next((f) => f.method === "elicitation/create", 10_000, 0);
    editor.client.notify("session/cancel", { sessionId });
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    await editor.client.next((f) => f.method === "$/cancel_request" && f.params.requestId === asked.id, 5_000, 0);
    expect(editor.outcome(sessionId, "q1")).toMatchObject({ status: "failed", content: [text("Cancelled by the user.")] });
    editor.close();
  });

  it("reports an editor that fails the request as a tool error, not a crashed turn", async () => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = () => {
      throw new Error("no form renderer");
    };
    const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
    expect(turn.stopReason).toBe("end_turn");
    expect(toolResults(turn.calls[1]).q1).toMatch(/^Error: The editor could not ask the question: Error: no form renderer \[-32603\]/);
    editor.close();
  });

  it("ends the question when the editor's answer is not valid JSON-RPC, instead of waiting for ever", async () => {
    const { editor, sessionId, key } = await setup();
    editor.elicit = () => {
      const { id } = editor.requests("elicitation/").at(-1)!;
      editor.client.send({ id, result: { action: "accept", content: { answer: "SQLite" } } }); // no "jsonrpc": "2.0"
      return never();
    };
    const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
    expect(turn.stopReason).toBe("end_turn");
    expect(toolResults(turn.calls[1]).q1).toMatch(/^Error: The editor could not ask the question: The editor's answer was not valid JSON-RPC: Invalid request \(jsonrpc: must be "2.0"\) \[-32600\]/);
    editor.close();
  });

  it("is never offered to a client without form elicitation, and calling it anyway asks nothing", async () => {
    for (const caps of [FULL_CAPS, { ...FULL_CAPS, elicitation: { url: {} } }]) {
      const { editor, sessionId, key } = await setup(caps);
      const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
      expect(allOfferedTools(turn.calls[0])).not.toContain("clarify");
      expect(toolResults(turn.calls[1]).q1).toMatch(/^Error: Unknown tool "clarify"/);
      expect(elicitations(editor)).toEqual([]);
      editor.close();
    }
  });

  it("is offered in every mode, read_only included", async () => {
    for (const mode of ["read_only", "default", "accept_edits", "dont_ask"]) {
      const { editor, sessionId, key } = await setup(ELICIT_CAPS, mode);
      editor.elicit = () => ({ action: "accept", content: { answer: "Postgres" } });
      const turn = await editor.turn(sessionId, key, steps(ask("q1", DB_QUESTION)));
      expect(allOfferedTools(turn.calls[0])).toContain("clarify");
      expect(toolResults(turn.calls[1]).q1).toBe("The user answered: Postgres");
      editor.close();
    }
  });
});
