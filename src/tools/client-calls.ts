/**
 * The one way tools reach the editor's machine. Every `fs/*` and `terminal/*`
 * request passes through `call`, which refuses to send it when the client did
 * not advertise the capability (a tool's `available` is the first line of
 * defence; this is the second), validates the answer, and turns editor errors
 * into `ToolError`s the model can read.
 */
import * as z from "zod";
import type {
  CLIENT_METHODS,
  ClientCapabilities,
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReadTextFileRequest,
  ReadTextFileResponse,
  ReleaseTerminalRequest,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WriteTextFileRequest,
} from "@agentclientprotocol/sdk";
import { ToolError, type ToolContext } from "./tool.js";

type ClientMethod = (typeof CLIENT_METHODS)[keyof typeof CLIENT_METHODS];
type Capability = "fs.readTextFile" | "fs.writeTextFile" | "terminal";

/** A hung editor must not hold a turn forever; waiting for a command's exit has its own timeout. */
const FS_TIMEOUT_MS = 60_000;
const TERMINAL_TIMEOUT_MS = 30_000;
/** Clean-up requests run after a cancel too, so they get a short leash of their own. */
const CLEANUP_TIMEOUT_MS = 10_000;

export function canReadFiles(caps: ClientCapabilities): boolean {
  return caps.fs?.readTextFile === true;
}

export function canWriteFiles(caps: ClientCapabilities): boolean {
  return caps.fs?.writeTextFile === true;
}

export function canUseTerminal(caps: ClientCapabilities): boolean {
  return caps.terminal === true;
}

const HAS: Record<Capability, (caps: ClientCapabilities) => boolean> = {
  "fs.readTextFile": canReadFiles,
  "fs.writeTextFile": canWriteFiles,
  terminal: canUseTerminal,
};

const zMeta = z.record(z.string(), z.unknown()).nullish();
const zReadResponse: z.ZodType<ReadTextFileResponse> = z.looseObject({ content: z.string(), _meta: zMeta });
const zCreateResponse: z.ZodType<CreateTerminalResponse> = z.looseObject({ terminalId: z.string().min(1), _meta: zMeta });
const zExitStatus: z.ZodType<TerminalExitStatus> = z.looseObject({
  exitCode: z.number().int().nullish(),
  signal: z.string().nullish(),
  _meta: zMeta,
});
const zOutputResponse: z.ZodType<TerminalOutputResponse> = z.looseObject({
  output: z.string(),
  truncated: z.boolean(),
  exitStatus: zExitStatus.nullish(),
  _meta: zMeta,
});
/** `fs/write_text_file`, `terminal/kill` and `terminal/release` answer with an empty object or null. */
const zIgnored = z.unknown();

interface CallOptions {
  requires: Capability;
  /** Says what failed, e.g. "read /a/b.ts". */
  action: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

async function call<T>(ctx: ToolContext, method: ClientMethod, params: object, schema: z.ZodType<T>, options: CallOptions): Promise<T> {
  if (!HAS[options.requires](ctx.client.capabilities)) {
    throw new ToolError(`The editor did not advertise the ${options.requires} capability, so the agent cannot ${options.action}.`);
  }
  let answer: unknown;
  try {
    answer = await ctx.client.request(method, params, {
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    // A cancel or a caller's own timeout is not the editor's fault; the caller decides what it means.
    if (options.signal?.aborted || err instanceof ToolError) throw err;
    throw new ToolError(`The editor could not ${options.action}: ${describeClientError(err)}`, { cause: err });
  }
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    throw new ToolError(`The editor's answer to ${method} was malformed: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
  }
  return parsed.data;
}

/** The editor's JSON-RPC error (code, message, data) or any other error, as one line. */
export function describeClientError(err: unknown): string {
  const body = typeof err === "object" && err !== null && "body" in err ? (err as { body: unknown }).body : undefined;
  if (typeof body === "object" && body !== null && "message" in body) {
    const { code, message, data } = body as { code?: unknown; message?: unknown; data?: unknown };
    const detail = data === undefined ? "" : ` (${typeof data === "string" ? data : JSON.stringify(data)})`;
    return `${String(message)}${detail}${typeof code === "number" ? ` [${code}]` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Only the editor's message: for a person to read, where the code and data would be noise. */
export function clientErrorWords(err: unknown): string {
  const body = typeof err === "object" && err !== null && "body" in err ? (err as { body: unknown }).body : undefined;
  if (typeof body === "object" && body !== null && "message" in body) return String((body as { message: unknown }).message);
  return err instanceof Error ? err.message : String(err);
}

export interface LineRange {
  /** 1-based first line. */
  line?: number;
  limit?: number;
}

export async function readTextFile(ctx: ToolContext, path: string, range: LineRange = {}): Promise<string> {
  const params = {
    sessionId: ctx.sessionId,
    path,
    ...(range.line !== undefined ? { line: range.line } : {}),
    ...(range.limit !== undefined ? { limit: range.limit } : {}),
  } satisfies ReadTextFileRequest;
  const response = await call(ctx, "fs/read_text_file", params, zReadResponse, {
    requires: "fs.readTextFile",
    action: `read ${path}`,
    signal: ctx.signal,
    timeoutMs: FS_TIMEOUT_MS,
  });
  return response.content;
}

export type PriorContent = { state: "present"; content: string } | { state: "absent" } | { state: "unknown"; reason: string };

/**
 * What a file holds before a write, for the diff. Editors answer a missing file
 * with an error whose wording varies, so "not found"-like errors mean absent and
 * any other failure is reported as unknown rather than guessed.
 */
export async function readPriorContent(ctx: ToolContext, path: string): Promise<PriorContent> {
  if (!canReadFiles(ctx.client.capabilities)) return { state: "unknown", reason: "the editor cannot read files" };
  try {
    return { state: "present", content: await readTextFile(ctx, path) };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const cause = err instanceof ToolError && err.cause !== undefined ? err.cause : err;
    // The reason goes into the permission dialog's title: the editor's words, without JSON-RPC's code and data.
    return NOT_FOUND.test(describeClientError(cause)) ? { state: "absent" } : { state: "unknown", reason: clientErrorWords(cause) };
  }
}

const NOT_FOUND = /not found|no such file|does not exist|doesn't exist|cannot find|ENOENT|os error 2|-32002/i;

/**
 * Cancellable only until it is sent: an editor that has the write goes on with
 * it, so the tool waits for its answer to tell the model whether the file changed.
 */
export async function writeTextFile(ctx: ToolContext, path: string, content: string): Promise<void> {
  if (ctx.signal.aborted) throw new ToolError("Cancelled by the user.");
  const params = { sessionId: ctx.sessionId, path, content } satisfies WriteTextFileRequest;
  await call(ctx, "fs/write_text_file", params, zIgnored, {
    requires: "fs.writeTextFile",
    action: `write ${path}`,
    timeoutMs: FS_TIMEOUT_MS,
  });
}

/**
 * Not cancellable on purpose: the editor creates the terminal even if the agent
 * stops listening, so the caller must learn its id to release it.
 */
export async function createTerminal(ctx: ToolContext, request: Omit<CreateTerminalRequest, "sessionId">): Promise<string> {
  const params = { ...request, sessionId: ctx.sessionId } satisfies CreateTerminalRequest;
  const response = await call(ctx, "terminal/create", params, zCreateResponse, {
    requires: "terminal",
    action: `start \`${request.command}\``,
    timeoutMs: TERMINAL_TIMEOUT_MS,
  });
  return response.terminalId;
}

/** Resolves with the exit status; rejects as-is when `signal` aborts (timeout or cancel). */
export async function waitForTerminalExit(ctx: ToolContext, terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus> {
  const params = { sessionId: ctx.sessionId, terminalId } satisfies WaitForTerminalExitRequest;
  return call(ctx, "terminal/wait_for_exit", params, zExitStatus, {
    requires: "terminal",
    action: "wait for the command to exit",
    signal,
    // The caller's signal carries the real limit; this only backs it up.
    timeoutMs: 24 * 60 * 60 * 1000,
  });
}

export async function terminalOutput(ctx: ToolContext, terminalId: string): Promise<TerminalOutputResponse> {
  const params = { sessionId: ctx.sessionId, terminalId } satisfies TerminalOutputRequest;
  return call(ctx, "terminal/output", params, zOutputResponse, {
    requires: "terminal",
    action: "read the command's output",
    timeoutMs: TERMINAL_TIMEOUT_MS,
  });
}

export async function killTerminal(ctx: ToolContext, terminalId: string): Promise<void> {
  const params = { sessionId: ctx.sessionId, terminalId } satisfies KillTerminalRequest;
  await call(ctx, "terminal/kill", params, zIgnored, { requires: "terminal", action: "kill the command", timeoutMs: CLEANUP_TIMEOUT_MS });
}

export async function releaseTerminal(ctx: ToolContext, terminalId: string): Promise<void> {
  const params = { sessionId: ctx.sessionId, terminalId } satisfies ReleaseTerminalRequest;
  await call(ctx, "terminal/release", params, zIgnored, {
    requires: "terminal",
    action: "release the terminal",
    timeoutMs: CLEANUP_TIMEOUT_MS,
  });
}
