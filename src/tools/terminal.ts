/**
 * `terminal`: runs a shell command on the user's machine in an editor terminal.
 * The editor shows the terminal live from the moment it exists; the model gets
 * the exit status and the (tail of the) output. The terminal is always
 * released: on success, failure, timeout and cancel.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { canUseTerminal } from "./client-calls.js";
import { resolveToolPath } from "./path-policy.js";
import { boundedForModel, formatCount, terminalBlock, textBlock } from "./render.js";
import { runInTerminal, type TerminalRunResult } from "./run-terminal.js";
import type { Tool } from "./tool.js";

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;
/** The editor keeps the last this-many bytes; the end of a log is where errors are. */
export const OUTPUT_BYTE_LIMIT = 64 * 1024;

const inputSchema = z.object({
  command: z.string().min(1).describe("The shell command line to run, e.g. `npm test -- --run`."),
  cwd: z.string().min(1).optional().describe("Absolute working directory inside the workspace. Default: the workspace root."),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_SECONDS)
    .optional()
    .describe(`Seconds to wait before the command is killed. Default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}.`),
});

export type TerminalInput = z.infer<typeof inputSchema>;

export const terminalTool: Tool<TerminalInput> = {
  name: "terminal",
  description:
    "Run a shell command in the user's workspace, in a terminal the user can watch. Returns the exit code and the output " +
    `(the last ${formatCount(OUTPUT_BYTE_LIMIT)} bytes if longer). Non-interactive only: no prompts, no long-running servers. ` +
    `Killed after \`timeout\` seconds (default ${DEFAULT_TIMEOUT_SECONDS}).`,
  kind: "execute",
  inputSchema,
  title: (input) => `$ ${input.command}`,
  available: canUseTerminal,
  async run(input, ctx) {
    const cwd = resolveToolPath(input.cwd ?? ctx.cwd, ctx);
    const title = `$ ${input.command}`;
    await ctx.gate?.({ kind: "execute", paths: [cwd], title, command: input.command, content: [textBlock(input.command)] });
    const timeoutSeconds = input.timeout ?? DEFAULT_TIMEOUT_SECONDS;
    const run = await runInTerminal(ctx, {
      command: input.command,
      cwd,
      outputByteLimit: OUTPUT_BYTE_LIMIT,
      timeoutMs: timeoutSeconds * 1000,
      onCreated: (terminalId) =>
        ctx.emit({ sessionUpdate: "tool_call_update", toolCallId: ctx.toolCallId, content: [terminalBlock(terminalId)] }),
    });
    const status = describeStatus(run, timeoutSeconds);
    const content: ToolCallContent[] = [terminalBlock(run.terminalId)];
    if (status.abnormal) content.push(textBlock(status.text));
    return {
      output: modelOutput(run, status.text),
      content,
      rawOutput: {
        exitCode: run.exitStatus?.exitCode ?? null,
        signal: run.exitStatus?.signal ?? null,
        timedOut: run.timedOut,
        truncated: run.truncated,
      },
    };
  },
};

function describeStatus(run: TerminalRunResult, timeoutSeconds: number): { text: string; abnormal: boolean } {
  if (run.timedOut) return { text: `Timed out after ${timeoutSeconds} s; the command was killed.`, abnormal: true };
  const code = run.exitStatus?.exitCode;
  const signal = run.exitStatus?.signal;
  if (signal) return { text: `Killed by signal ${signal}.`, abnormal: true };
  if (code === undefined || code === null) return { text: "Exited (the editor reported no exit code).", abnormal: false };
  return { text: `Exit code ${code}.`, abnormal: code !== 0 };
}

function modelOutput(run: TerminalRunResult, status: string): string {
  const parts = [status];
  if (run.truncated) parts.push(`[Output truncated: the editor kept only the last ${formatCount(OUTPUT_BYTE_LIMIT)} bytes.]`);
  parts.push(run.output === "" ? "(no output)" : boundedForModel(run.output, "Redirect the output to a file and read parts of it.").text);
  return parts.join("\n");
}
