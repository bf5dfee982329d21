/**
 * One MCP server of one attached connection: its link, its status and the
 * tools it listed. A server that cannot be reached, or does not answer within
 * `CONNECT_TIMEOUT_MS`, is `failed` and offers nothing; one that dies later
 * fails its calls with a clear message and is reconnected once, on the next call.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpCallTimeouts } from "@hermes-edge/protocol";
import { ToolError } from "../tools/tool.js";
import { McpServerError, type McpLink, type McpToolInfo } from "./mcp-link.js";

export const CONNECT_TIMEOUT_MS = 10_000;

export type McpServerStatus = "connecting" | "ready" | "failed" | "unsupported" | "skipped";

export class McpServer {
  status: McpServerStatus = "connecting";
  /** Why the server is failed, unsupported or skipped. */
  cause: string | undefined;
  tools: McpToolInfo[] = [];
  #link: McpLink | undefined;
  #reconnectUsed = false;
  #listing: Promise<void> | undefined;
  /** A list_changed arrived while connecting or listing: list again once that is over. */
  #relist = false;
  /** Closed for good (its connection went away): nothing connects it again. */
  #closed = false;

  constructor(
    /** The entry's `name`, as the editor wrote it. */
    readonly name: string,
    readonly transport: string,
    /** Undefined when the entry cannot be connected at all (`unsupported`). */
    private readonly connect: ((server: McpServer) => Promise<McpLink>) | undefined,
    /** A tool call fails after `idleMs` without an answer or progress, and after `totalMs` in all (`mcpCallTimeouts`). */
    private readonly callTimeouts: { idleMs: number; totalMs: number } = mcpCallTimeouts(),
  ) {}

  /** Connects and lists the tools, both within the timeout; never throws. */
  start(): Promise<void> {
    if (!this.connect || this.#closed) return Promise.resolve();
    this.status = "connecting";
    this.#listing = this.#start(this.connect).finally(() => this.#listed());
    return this.#listing;
  }

  /** Settles once the current connect or re-list is over. */
  async settled(): Promise<void> {
    while (this.#listing) await this.#listing;
  }

  /** `notifications/tools/list_changed`: list again (the next turn waits for it). */
  refresh(): void {
    if (this.#listing) {
      this.#relist = true;
      return;
    }
    if (this.status !== "ready" || !this.#link) return;
    const link = this.#link;
    this.#listing = withTimeout((signal) => link.listTools({ signal, timeoutMs: CONNECT_TIMEOUT_MS }))
      .then((tools) => void (this.tools = tools))
      .catch((err: unknown) => this.#fail(err))
      .finally(() => this.#listed());
  }

  /**
   * The turn-start look at an idle `acp` server (`McpServers.ready`): lists
   * again unless a list is under way already. It only updates the tools: a
   * server that answers it with a failure keeps its status (its next call finds
   * out and reconnects, as before), one that does not answer at all is failed,
   * so that later turns do not wait for it.
   */
  recheck(): void {
    if (this.#listing || this.status !== "ready" || !this.#link) return;
    const link = this.#link;
    this.#listing = withTimeout((signal) => link.listTools({ signal, timeoutMs: CONNECT_TIMEOUT_MS }))
      .then((tools) => void (this.tools = tools))
      .catch((err: unknown) => {
        if (err instanceof NoAnswerError) this.#fail(err);
      })
      .finally(() => this.#listed());
  }

  #listed(): void {
    this.#listing = undefined;
    if (!this.#relist) return;
    this.#relist = false;
    this.refresh();
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.#closed) throw new ToolError(`MCP server "${this.name}" was closed: the editor connection that declared it went away.`);
    if (this.status !== "ready") {
      if (this.#reconnectUsed || !this.connect) throw new ToolError(`MCP server "${this.name}" is unavailable (${this.cause ?? this.status}).`);
      this.#reconnectUsed = true;
      await this.start();
      if ((this.status as McpServerStatus) !== "ready") throw new ToolError(`MCP server "${this.name}" is unavailable: reconnecting failed (${this.cause}).`);
    }
    try {
      return await this.#link!.callTool(tool, args, { signal, ...this.callTimeouts });
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof McpServerError) throw new ToolError(`MCP server "${this.name}" answered ${tool} with an error (${err.code}): ${err.message}`);
      this.#fail(err);
      const retry = this.#reconnectUsed ? "" : " It will be reconnected once, on the next call of one of its tools.";
      throw new ToolError(`MCP server "${this.name}" stopped responding: ${this.cause}.${retry}`);
    }
  }

  /** A `notifications/progress` the server sent for inner request `requestId` (acp servers). */
  progressed(requestId: string): void {
    this.#link?.progressed?.(requestId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const link = this.#link;
    this.#link = undefined;
    this.status = "skipped";
    this.cause = "closed";
    await link?.close().catch(() => undefined);
  }

  /** Marks the server failed (its link died or closed). */
  lost(cause: string): void {
    if (this.status === "ready") {
      this.status = "failed";
      this.cause = cause;
    }
  }

  async #start(connect: (server: McpServer) => Promise<McpLink>): Promise<void> {
    await this.#link?.close().catch(() => undefined);
    this.#link = undefined;
    let linked: Promise<McpLink> | undefined;
    try {
      const tools = await withTimeout(async (signal) => {
        linked = connect(this);
        return (await linked).listTools({ signal, timeoutMs: CONNECT_TIMEOUT_MS });
      });
      const link = await linked!;
      if (this.#closed) {
        await link.close().catch(() => undefined);
        return;
      }
      this.#link = link;
      this.tools = tools;
      this.status = "ready";
      this.cause = undefined;
    } catch (err) {
      if (!this.#closed) this.#fail(err);
      // A link that arrives after the timeout (or was listing when it struck) is closed, not left open.
      void (linked as Promise<McpLink> | undefined)?.then((link) => link.close()).catch(() => undefined);
    }
  }

  #fail(err: unknown): void {
    this.status = "failed";
    this.cause = describeError(err);
  }
}

class NoAnswerError extends Error {}

/** Runs `work` with a signal that aborts after `CONNECT_TIMEOUT_MS`, and rejects then (`NoAnswerError`) even if `work` ignores it. */
async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new NoAnswerError(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`));
    }, CONNECT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error && err.cause.message && !err.message.includes(err.cause.message) ? ` (${err.cause.message})` : "";
  return `${err.message}${cause}`.replace(/\s+/g, " ").slice(0, 500);
}
