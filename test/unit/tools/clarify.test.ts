import { describe, expect, it } from "vitest";
import { answerForModel, clarifyTool, elicitationRequest } from "../../../src/tools/clarify.js";
import { FakeClient, fakeContext, HANG } from "./fakes.js";

const ELICIT = { elicitation: { form: {} } };
const withChoices = { question: "Which database?", choices: ["Postgres", "SQLite"] };

describe("clarify", () => {
  it("is offered only to clients that advertise elicitation.form", () => {
    expect(clarifyTool.available!(ELICIT)).toBe(true);
    expect(clarifyTool.available!({})).toBe(false);
    expect(clarifyTool.available!({ elicitation: {} })).toBe(false);
    expect(clarifyTool.available!({ elicitation: { url: {} } })).toBe(false);
  });

  it("validates its input: 1–8 distinct choices of at most 200 characters", () => {
    const parse = (input: unknown) => clarifyTool.inputSchema.safeParse(input).success;
    expect(parse({ question: "Why?" })).toBe(true);
    expect(parse({ question: " " })).toBe(false);
    expect(parse({ question: "Q", choices: [] })).toBe(false);
    expect(parse({ question: "Q", choices: Array.from({ length: 8 }, (_, i) => `c${i}`) })).toBe(true);
    expect(parse({ question: "Q", choices: Array.from({ length: 9 }, (_, i) => `c${i}`) })).toBe(false);
    expect(parse({ question: "Q", choices: ["x".repeat(200)] })).toBe(true);
    expect(parse({ question: "Q", choices: ["x".repeat(201)] })).toBe(false);
    expect(parse({ question: "Q", choices: ["a", "a"] })).toBe(false);
  });

  it("asks in form mode, tied to the session and tool call: an enum answer plus optional other, or a free-text answer", () => {
    const ids = { sessionId: "sess-1", toolCallId: "call-1" };
    expect(elicitationRequest(withChoices, ids)).toEqual({
      mode: "form",
      sessionId: "sess-1",
      toolCallId: "call-1",
      message: "Which database?",
      requestedSchema: {
        type: "object",
        properties: {
          answer: { type: "string", title: "Answer", enum: ["Postgres", "SQLite"] },
          other: { type: "string", title: "Other", description: expect.any(String) },
        },
        required: ["answer"],
      },
    });
    expect((elicitationRequest({ question: "Name?" }, ids) as { requestedSchema: unknown }).requestedSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string", title: "Answer", minLength: 1 } },
      required: ["answer"],
    });
  });

  it("tells the model the answer, the added text, or that the user declined", () => {
    expect(answerForModel(withChoices, { action: "accept", content: { answer: "SQLite" } }).output).toBe("The user answered: SQLite");
    expect(answerForModel(withChoices, { action: "accept", content: { answer: "SQLite", other: " on D1 " } })).toEqual({
      output: "The user answered: SQLite\nThey added: on D1",
      shown: "SQLite\non D1",
    });
    expect(answerForModel({ question: "Name?" }, { action: "accept", content: { answer: "hermes" } }).output).toBe("The user answered: hermes");
    expect(answerForModel(withChoices, { action: "decline" }).output).toMatch(/^The user declined to answer/);
    expect(answerForModel(withChoices, { action: "cancel" }).output).toMatch(/^The user dismissed the question without answering/);
  });

  it("tells the model the user gave no answer when the answer is blank, and trims one that is not", () => {
    for (const blank of ["", "   ", "\n\t ", "\u3000"]) {
      expect(answerForModel({ question: "Name?" }, { action: "accept", content: { answer: blank } })).toEqual({
        output: "The user gave a blank answer. Do not ask again; proceed with your best judgement or stop and explain.",
        shown: "Not answered (blank).",
      });
    }
    expect(answerForModel(withChoices, { action: "accept", content: { answer: "  ", other: "anything" } }).shown).toBe("Not answered (blank).");
    expect(answerForModel({ question: "Name?" }, { action: "accept", content: { answer: "  hermes \n" } })).toEqual({
      output: "The user answered: hermes",
      shown: "hermes",
    });
  });

  it("refuses answers that are not answers: outside the choices, empty, unknown actions, malformed", () => {
    expect(() => answerForModel(withChoices, { action: "accept", content: { answer: "MySQL" } })).toThrow(/not one of the choices/);
    expect(() => answerForModel(withChoices, { action: "accept", content: {} })).toThrow(/no answer/);
    expect(() => answerForModel(withChoices, { action: "_later" })).toThrow(/unknown elicitation action "_later"/);
    expect(() => answerForModel(withChoices, "yes")).toThrow(/not a valid elicitation response/);
  });

  it("sends elicitation/create with the turn's signal and no timeout, and stops waiting when the turn is cancelled", async () => {
    const client = new FakeClient(ELICIT).on("elicitation/create", HANG);
    const ctx = fakeContext(client);
    const running = clarifyTool.run(withChoices, ctx);
    await Promise.resolve();
    expect(client.requests[0]).toMatchObject({ method: "elicitation/create", options: { signal: ctx.signal } });
    expect(client.requests[0]!.options).not.toHaveProperty("timeoutMs");
    ctx.abort();
    await expect(running).rejects.toThrow(/cancelled/);
  });

  it("reports an editor error as a tool error that says what failed", async () => {
    const client = new FakeClient(ELICIT).fail("elicitation/create", "Method not found", -32601);
    await expect(clarifyTool.run(withChoices, fakeContext(client))).rejects.toThrow(/The editor could not ask the question: Method not found \[-32601\]/);
  });
});
