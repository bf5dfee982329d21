/**
 * The lifecycle of one command in an editor terminal, shared by `terminal` and
 * `search_files`: create → wait for exit (bounded) → kill if it overran →
 * output → release. The terminal is released on every path, because an
 * unreleased terminal keeps a process alive on the user's machine.
 */
import type { TerminalExitStatus } from "@agentclientprotocol/sdk";
import { createTerminal, killTerminal, releaseTerminal, terminalOutput, waitForTerminalExit } from "./client-calls.js";
import { ToolError, type ToolContext } from "./tool.js";

export interface TerminalRunOptions {
  /** A shell command line; editors run `command` through the user's shell when no `args` are given. */
  command: string;
  cwd: string;
  outputByteLimit: number;
  timeoutMs: number;
  /** Called as soon as the editor has created the terminal, before waiting (to show it live). */
  onCreated?(terminalId: string): void;
}

export interface TerminalRunResult {
  terminalId: string;
  output: string;
  /** True when the editor dropped the start of the output to stay within `outputByteLimit`. */
  truncated: boolean;
  /** Null when the command was killed for overrunning and the editor reported no status. */
  exitStatus: TerminalExitStatus | null;
  timedOut: boolean;
}

export async function runInTerminal(ctx: ToolContext, options: TerminalRunOptions): Promise<TerminalRunResult> {
  const terminalId = await createTerminal(ctx, {
    command: options.command,
    cwd: options.cwd,
    outputByteLimit: options.outputByteLimit,
  });
  try {
    if (ctx.signal.aborted) throw cancelled();
    options.onCreated?.(terminalId);
    const waited = await waitBounded(ctx, terminalId, options.timeoutMs);
    if (waited.timedOut) await killTerminal(ctx, terminalId);
    const output = await terminalOutput(ctx, terminalId);
    return {
      terminalId,
      output: output.output,
      truncated: output.truncated,
      exitStatus: waited.status ?? output.exitStatus ?? null,
      timedOut: waited.timedOut,
    };
  } catch (err) {
    // Release alone would also end the process, but ACP only promises that for
    // release; an explicit kill makes a cancelled command stop first.
    if (ctx.signal.aborted) await quietly(() => killTerminal(ctx, terminalId));
    throw err;
  } finally {
    await quietly(() => releaseTerminal(ctx, terminalId));
  }
}

async function waitBounded(
  ctx: ToolContext,
  terminalId: string,
  timeoutMs: number,
): Promise<{ status: TerminalExitStatus | null; timedOut: boolean }> {
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, timeoutMs);
  const onCancel = () => stop.abort();
  ctx.signal.addEventListener("abort", onCancel, { once: true });
  try {
    if (ctx.signal.aborted) throw cancelled();
    return { status: await waitForTerminalExit(ctx, terminalId, stop.signal), timedOut: false };
  } catch (err) {
    if (timedOut && !ctx.signal.aborted) return { status: null, timedOut: true };
    if (ctx.signal.aborted) throw cancelled();
    throw err;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onCancel);
  }
}

function cancelled(): ToolError {
  return new ToolError("Cancelled by the user.");
}

/** Clean-up must not mask the outcome the model should see. */
async function quietly(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch {
    // Nothing useful to do: the editor is gone or already dropped the terminal.
  }
}
