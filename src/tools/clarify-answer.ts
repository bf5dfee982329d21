/**
 * What `clarify` makes of the editor's answer to `elicitation/create`: the
 * response is validated here, at the boundary, and what the model reads, the
 * editor shows and history keeps is bounded by `MAX_ANSWER_CHARS`.
 */
import * as z from "zod";
import type { ClarifyInput } from "./clarify.js";
import { formatCount, truncateText } from "./render.js";
import { ToolError } from "./tool.js";

/**
 * The most of one answer (the answer and the added text together) that goes
 * on: 16 Ki characters, like the REST body bound (`MAX_BODY_BYTES`), about 4k
 * tokens. Far more than anyone types; past it is pasted material.
 *
 * A longer answer is cut, clearly marked with its length, rather than refused:
 * the model is told not to ask again, so refusing would lose all the user
 * said, while the start (where an answer's point usually is) plus the marker
 * lets the model go on and tell the user what it did not get. Only the
 * WebSocket frame limit bounds the answer before this point.
 */
export const MAX_ANSWER_CHARS = 16 * 1024;

/** `ElicitationContentValue`: what a form field's value may be on the wire. */
const zContentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** `CreateElicitationResponse`; an action the spec may add later is read, not refused, here. */
const zResponse = z.looseObject({
  action: z.string(),
  content: z.record(z.string(), zContentValue).nullish(),
});

/** The form `clarify` asks (`elicitationRequest`); a field it did not ask for is not passed on. */
const zAnswer = z.object({
  answer: z.string({ error: (issue) => (issue.input === undefined ? "no answer was sent" : "the answer is not text") }),
  other: z.string({ error: "the added text is not text" }).optional(),
});

export interface ClarifyAnswer {
  /** What the model reads. */
  output: string;
  /** What the editor shows. */
  shown: string;
  /** What the tool call keeps as its raw output: the validated, bounded answer, never the editor's response as sent. */
  rawOutput: Record<string, unknown>;
}

function notAnswered(action: string, how: string, why: string): ClarifyAnswer {
  return {
    output: `The user ${how}. Do not ask again; proceed with your best judgement or stop and explain.`,
    shown: `Not answered (${why}).`,
    rawOutput: { action },
  };
}

function issuesOf(error: z.ZodError, at: string): string {
  return error.issues.map((i) => `${[at, ...i.path].join(".")}: ${i.message}`).join("; ");
}

/** What the model reads for the editor's answer; a response that is no answer throws `ToolError` with the reason. */
export function answerForModel(input: ClarifyInput, response: unknown): ClarifyAnswer {
  const parsed = zResponse.safeParse(response);
  if (!parsed.success) throw new ToolError(`The editor's answer to the question was not a valid elicitation response (${issuesOf(parsed.error, "result")}).`);
  const { action, content } = parsed.data;
  if (action === "decline") return notAnswered(action, "declined to answer", action);
  if (action === "cancel") return notAnswered(action, "dismissed the question without answering", action);
  if (action !== "accept") throw new ToolError(`The editor answered with an unknown elicitation action "${action}"; there is no answer.`);
  const form = zAnswer.safeParse(content ?? {});
  if (!form.success) throw new ToolError(`The editor accepted the question but its answer is not usable (${issuesOf(form.error, "result.content")}).`);
  const answer = form.data.answer.trim();
  // Spaces are what the user typed, not an answer: the model is told so, as for a decline (it cannot ask again).
  if (!answer) return notAnswered(action, "gave a blank answer", "blank");
  const other = form.data.other?.trim() || undefined;
  if (input.choices && !input.choices.includes(answer)) {
    // Quoted only when it is as short as a choice: the answer may be megabytes.
    const quoted = answer.length > Math.max(...input.choices.map((c) => c.length)) ? `of ${formatCount(answer.length)} characters` : `"${answer}"`;
    throw new ToolError(`The editor's answer ${quoted} is not one of the choices offered.`);
  }
  return accepted(answer, other);
}

function accepted(fullAnswer: string, fullOther: string | undefined): ClarifyAnswer {
  const total = fullAnswer.length + (fullOther?.length ?? 0);
  const answer = truncateText(fullAnswer, MAX_ANSWER_CHARS).text;
  const room = MAX_ANSWER_CHARS - answer.length;
  const other = fullOther !== undefined && room > 0 ? truncateText(fullOther, room).text || undefined : undefined;
  const kept = answer.length + (other?.length ?? 0);
  const omitted = total - kept;
  const text = (prefix: { answer: string; other: string }) => `${prefix.answer}${answer}${other ? `${prefix.other}${other}` : ""}`;
  let output = text({ answer: "The user answered: ", other: "\nThey added: " });
  let shown = text({ answer: "", other: "\n" });
  if (omitted > 0) {
    const length = `The answer is ${formatCount(total)} characters long; ${formatCount(omitted)} more characters not included (limit ${formatCount(MAX_ANSWER_CHARS)})`;
    output += `\n\n[Truncated: ${length}. If you need the rest, ask the user to put it in a file you can read.]`;
    shown += `\n… ${formatCount(omitted)} more characters not passed on (the answer is ${formatCount(total)} characters; limit ${formatCount(MAX_ANSWER_CHARS)})`;
  }
  const rawOutput = {
    action: "accept",
    content: { answer, ...(other !== undefined ? { other } : {}) },
    ...(omitted > 0 ? { truncated: { characters: total, omitted } } : {}),
  };
  return { output, shown, rawOutput };
}
