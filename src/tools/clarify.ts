/**
 * `clarify`: asks the user a question mid-turn through ACP elicitation
 * (`elicitation/create`, form mode), tied to the session and this tool call.
 * Offered only to clients that advertise `elicitation.form`; permitted in every
 * mode (it changes nothing); never given to sub-agents (delegate/blocked-tools.ts).
 * A cancelled turn withdraws the question with `$/cancel_request`, the same path
 * as any editor request: `elicitation/complete` is only for URL-mode elicitations.
 * The answer is validated and bounded in clarify-answer.ts.
 */
import type { ClientCapabilities, CreateElicitationRequest, ElicitationSchema } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { answerForModel } from "./clarify-answer.js";
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
    const { output, shown, rawOutput } = answerForModel(input, response);
    return { output, content: [textBlock(shown)], rawOutput };
  },
};
