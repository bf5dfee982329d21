import { describe, expect, it } from "vitest";
import { answerForModel, MAX_ANSWER_CHARS } from "../../../src/tools/clarify-answer.js";
import { clarifyTool, elicitationRequest } from "../../../src/tools/clarify.js";
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
      rawOutput: { action: "accept", content: { answer: "SQLite", other: "on D1" } },
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
        rawOutput: { action: "accept" },
      });
    }
    expect(answerForModel(withChoices, { action: "accept", content: { answer: "  ", other: "anything" } }).shown).toBe("Not answered (blank).");
    expect(answerForModel({ question: "Name?" }, { action: "accept", content: { answer: "  hermes \n" } })).toEqual({
      output: "The user answered: hermes",
      shown: "hermes",
      rawOutput: { action: "accept", content: { answer: "hermes" } },
    });
  });

  it("refuses answers that are not answers: outside the choices, empty, unknown actions, malformed", () => {
    expect(() => answerForModel(withChoices, { action: "accept", content: { answer: "MySQL" } })).toThrow(/not one of the choices/);
    expect(() => answerForModel(withChoices, { action: "accept", content: {} })).toThrow(/no answer/);
    expect(() => answerForModel(withChoices, { action: "_later" })).toThrow(/unknown elicitation action "_later"/);
    expect(() => answerForModel(withChoices, "yes")).toThrow(/not a valid elicitation response/);
  });

  it("names what is wrong with a malformed answer, field by field", () => {
    const reason = (response: unknown) => {
      try {
        answerForModel({ question: "Name?" }, response);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error("no error");
    };
    expect(reason({ content: { answer: "x" } })).toBe(
      "The editor's answer to the question was not a valid elicitation response (result.action: Invalid input: expected string, received undefined).",
    );
    expect(reason({ action: "accept", content: { answer: { text: "x" } } })).toBe(
      "The editor's answer to the question was not a valid elicitation response (result.content.answer: Invalid input).",
    );
    expect(reason({ action: "accept", content: "x" })).toMatch(/^The editor's answer to the question was not a valid elicitation response \(result\.content: /);
    expect(reason({ action: "accept", content: { answer: 42 } })).toBe("The editor accepted the question but its answer is not usable (result.content.answer: the answer is not text).");
    expect(reason({ action: "accept", content: { answer: "x", other: ["a"] } })).toBe(
      "The editor accepted the question but its answer is not usable (result.content.other: the added text is not text).",
    );
    expect(reason({ action: "accept", content: null })).toBe("The editor accepted the question but its answer is not usable (result.content.answer: no answer was sent).");
  });
});

describe("clarify's answer bound", () => {
  const free = { question: "Paste the log?" };
  const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

  it("passes an answer of exactly MAX_ANSWER_CHARS (16 Ki characters) on whole", () => {
    const answer = "x".repeat(MAX_ANSWER_CHARS);
    expect(MAX_ANSWER_CHARS).toBe(16_384);
    expect(answerForModel(free, accept({ answer }))).toEqual({
      output: `The user answered: ${answer}`,
      shown: answer,
      rawOutput: { action: "accept", content: { answer } },
    });
  });

  it("cuts a longer answer to the bound and tells the model how long it was and how much is missing", () => {
    const answer = "y".repeat(1_000_000);
    const result = answerForModel(free, accept({ answer }));
    const kept = "y".repeat(MAX_ANSWER_CHARS);
    expect(result.output).toBe(
      `The user answered: ${kept}\n\n[Truncated: The answer is 1,000,000 characters long; 983,616 more characters not included (limit 16,384). ` +
        "If you need the rest, ask the user to put it in a file you can read.]",
    );
    expect(result.shown).toBe(`${kept}\n… 983,616 more characters not passed on (the answer is 1,000,000 characters; limit 16,384)`);
    expect(result.rawOutput).toEqual({ action: "accept", content: { answer: kept }, truncated: { characters: 1_000_000, omitted: 983_616 } });
  });

  it("bounds the answer and the added text together, the added text getting what the answer leaves", () => {
    const other = "z".repeat(20_000);
    const result = answerForModel(withChoices, accept({ answer: "SQLite", other }));
    const keptOther = "z".repeat(MAX_ANSWER_CHARS - "SQLite".length);
    expect(result.output).toBe(
      `The user answered: SQLite\nThey added: ${keptOther}\n\n[Truncated: The answer is 20,006 characters long; 3,622 more characters not included (limit 16,384). ` +
        "If you need the rest, ask the user to put it in a file you can read.]",
    );
    expect(result.rawOutput).toEqual({ action: "accept", content: { answer: "SQLite", other: keptOther }, truncated: { characters: 20_006, omitted: 3_622 } });
    // A free-text answer that fills the bound leaves nothing for the added text.
    const full = answerForModel(free, accept({ answer: "a".repeat(MAX_ANSWER_CHARS), other: "more" }));
    expect(full.rawOutput).toEqual({ action: "accept", content: { answer: "a".repeat(MAX_ANSWER_CHARS) }, truncated: { characters: 16_388, omitted: 4 } });
  });

  it("keeps none of what the editor sent beyond the fields asked for, and does not quote a huge answer outside the choices", () => {
    const result = answerForModel(withChoices, { action: "accept", content: { answer: "SQLite", extra: "e".repeat(1_000_000) }, _meta: { big: "m".repeat(1_000_000) } });
    expect(result.rawOutput).toEqual({ action: "accept", content: { answer: "SQLite" } });
    expect(JSON.stringify(result).length).toBeLessThan(200);
    expect(() => answerForModel(withChoices, accept({ answer: "q".repeat(1_000_000) }))).toThrow(
      /^The editor's answer of 1,000,000 characters is not one of the choices offered\.$/,
    );
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
