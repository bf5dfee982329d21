import type { ElicitationSchema } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { elicitationRequest } from "../../../src/tools/clarify.js";
import { blankAnswerMessage, formContent, formFields, initialValues } from "../../../web/src/app/state/elicitation-form.js";

const ctx = { sessionId: "s", toolCallId: "t" };

describe("the elicitation form", () => {
  it("turns clarify with choices into a required choice and an optional text field", () => {
    const req = elicitationRequest({ question: "Which database?", choices: ["Postgres", "SQLite"] }, ctx);
    if (req.mode !== "form") throw new Error("form mode expected");
    // The root project's SDK types widen a form request's schema to unknown; clarify built it as an ElicitationSchema.
    const fields = formFields(req.requestedSchema as ElicitationSchema);
    expect(fields.map((f) => [f.name, f.kind, f.label, f.required])).toEqual([
      ["answer", "choice", "Answer", true],
      ["other", "text", "Other", false],
    ]);
    expect(fields[0]!.kind === "choice" && fields[0]!.choices.map((c) => c.label)).toEqual(["Postgres", "SQLite"]);
    // The empty optional field is left out, not sent as "".
    expect(formContent(fields, { ...initialValues(fields), answer: "SQLite" })).toEqual({ answer: "SQLite" });
    expect(formContent(fields, { answer: "SQLite", other: "  small data  " })).toEqual({ answer: "SQLite", other: "small data" });
  });

  it("holds back a required text answer of only spaces, which would otherwise be sent as no answer", () => {
    const req = elicitationRequest({ question: "Name?" }, ctx);
    if (req.mode !== "form") throw new Error("form mode expected");
    const [answer] = formFields(req.requestedSchema as ElicitationSchema);
    expect(blankAnswerMessage(answer!, "  \t")).toBe("Enter an answer, not only spaces.");
    // Empty is left to the native `required`; a real answer and an optional field pass.
    expect(blankAnswerMessage(answer!, "")).toBe("");
    expect(blankAnswerMessage(answer!, " hermes ")).toBe("");
    const withChoices = elicitationRequest({ question: "Q", choices: ["a"] }, ctx);
    if (withChoices.mode !== "form") throw new Error("form mode expected");
    const other = formFields(withChoices.requestedSchema as ElicitationSchema)[1]!;
    expect(blankAnswerMessage(other, "   ")).toBe("");
  });

  it("types booleans, numbers, integers, titled options and multi-selects as the schema asks", () => {
    const fields = formFields({
      type: "object",
      properties: {
        ok: { type: "boolean", title: "Proceed", default: true },
        n: { type: "number", minimum: 0 },
        k: { type: "integer", default: 3 },
        size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        odd: { type: "_custom" } as never,
      },
      required: ["n"],
    });
    expect(fields.map((f) => f.kind)).toEqual(["boolean", "number", "number", "choice", "multi", "unsupported"]);
    expect(fields.find((f) => f.name === "n")!.required).toBe(true);
    const values = initialValues(fields);
    expect(values).toEqual({ ok: true, n: "", k: "3", size: "", tags: [] });
    expect(formContent(fields, { ...values, n: "2.5", size: "l", tags: ["b"] })).toEqual({ ok: true, n: 2.5, k: 3, size: "l", tags: ["b"] });
    expect(formContent(fields, { ...values, ok: false })).toEqual({ ok: false, k: 3 });
  });
});
