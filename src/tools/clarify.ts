/**
 * `clarify`: asks the user a question mid-turn through ACP elicitation
 * (`elicitation/create`, form mode), tied to the session and this tool call.
 * Offered only to clients that advertise `elicitation.form`; permitted in every
 * mode (it changes nothing); never given to sub-agents (delegate/blocked-tools.ts).
 * A cancelled turn withdraws the question with `$/cancel_request`, the same path
 * as any editor request: `elicitation/complete` is only for URL-mode elicitations.
 */
import type { ClientCapabilities, CreateElicitationRequest, ElicitationSchema } from "@agentclientprotocol/sdk";
import { z } from "zod";
import { describeClientError } from "./client-calls.js";
import { textBlock } from "./render.js";
import { ToolError, type Tool } from "./tool.js";

export const MAX_CHOICES = 8;
export const MAX_CHOICE_CHARS = 200;

const inputSchema = z.object({
  question: z.string().trim().min(1).max(2_000).describe("The question, complete enough to answer without the conversation."),
  choices: z
    .array(z.string().trim().min(1).max(MAX_CHOICE_CHARS))
    .min(1)
    .max(MAX_CHOICES)
    .refine((c) => new Set(c).size === c.length, { message: "choices must differ" })
    .optional()
    .describe(`Up to ${MAX_CHOICES} answers to pick from (the user may add free text). Omit for a free-text answer.`),
});

export type ClarifyInput = z.infer<typeof inputSchema>;

/** What the editor answers (the spec allows future actions; those are not a known answer). */
const zResponse = z.looseObject({
  action: z.string(),
  content: z.record(z.string(), z.unknown()).nullish(),
});

export function elicitationRequest(input: ClarifyInput, ctx: { sessionId: string; toolCallId: string }): CreateElicitationRequest {
  const requestedSchema: ElicitationSchema = input.choices
    ? {
        type: "object",
        properties: {
          answer: { type: "string", title: "Answer", enum: input.choices },
          other: { type: "string", title: "Other", description: "Anything to add, or an answer that is not in the list." },
        },
        required: ["answer"],
      }
    : { type: "object", properties: { answer: { type: "string", title: "Answer", minLength: 1 } }, required: ["answer"] };
  return { mode: "form", sessionId: ctx.sessionId, toolCallId: ctx.toolCallId, message: input.question, requestedSchema };
}

function notAnswered(how: string, why: string): { output: string; shown: string } {
  return { output: `The user ${how}. Do not ask again; proceed with your best judgement or stop and explain.`, shown: `Not answered (${why}).` };
}

/** What the model reads for the editor's answer. */
export function answerForModel(input: ClarifyInput, response: unknown): { output: string; shown: string } {
  const parsed = zResponse.safeParse(response);
  if (!parsed.success) throw new ToolError("The editor's answer to the question was not a valid elicitation response.");
  const { action, content } = parsed.data;
  if (action === "decline") return notAnswered("declined to answer", action);
  if (action === "cancel") return notAnswered("dismissed the question without answering", action);
  if (action !== "accept") throw new ToolError(`The editor answered with an unknown elicitation action "${action}"; there is no answer.`);
  if (typeof content?.answer !== "string") throw new ToolError("The editor accepted the question but sent no answer.");
  const answer = content.answer.trim();
  // Spaces are what the user typed, not an answer: the model is told so, as for a decline (it cannot ask again).
  if (!answer) return notAnswered("gave a blank answer", "blank");
  const other = typeof content.other === "string" && content.other.trim() ? content.other.trim() : undefined;
  if (input.choices && !input.choices.includes(answer)) {
    throw new ToolError(`The editor's answer "${answer}" is not one of the choices offered.`);
  }
  const output = `The user answered: ${answer}${other ? `\nThey added: ${other}` : ""}`;
  return { output, shown: other ? `${answer}\n${other}` : answer };
}

export const clarifyTool: Tool<ClarifyInput> = {
  name: "clarify",
  description:
    "Ask the user a question and wait for the answer, when you cannot proceed well without it (an ambiguous requirement, " +
    "a choice only they can make). Give `choices` when the answers are known; the user can still add free text. " +
    "Do not ask what you can find out with your other tools.",
  kind: "other",
  inputSchema,
  title: (input) => `Asking: ${input.question}`,
  available: (client: ClientCapabilities) => client.elicitation?.form != null,
  async run(input, ctx) {
    let response: unknown;
    try {
      // No timeout: the user may take their time; a cancelled turn (the signal) withdraws the question.
      response = await ctx.client.request("elicitation/create", elicitationRequest(input, ctx), { signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted || err instanceof ToolError) throw err;
      throw new ToolError(`The editor could not ask the question: ${describeClientError(err)}`, { cause: err });
    }
    const { output, shown } = answerForModel(input, response);
    return { output, content: [textBlock(shown)], rawOutput: response };
  },
};
