/**
 * One of the editor's stdio MCP servers, run by the proxy on the user's
 * machine: spawned with its command, args and env in the session's cwd, spoken
 * to with the MCP SDK's stdio client (newline-delimited JSON-RPC). Its stderr
 * goes to the proxy's log, never to stdout. A process that died is started
 * again once, at its next `tools/list` (the agent lists at each turn's start,
 * and when it reconnects the server).
 * @module
 */
import { mcpTimeoutReason, type McpServerStdioEntry } from "@hermes-edge/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError, ResultSchema, type Notification, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "./log.js";
import { StderrTail } from "./stderr-tail.js";

/** The inner outcome of one request, or why the server could not give one. */
export type StdioOutcome = { result: unknown } | { error: { code: number; message: string; data?: unknown } } | { failed: string };

const START_TIMEOUT_MS = 10_000;

export class StdioMcpServer {
  #client: Client | undefined;
  #transport: StdioClientTransport | undefined;
  #starting: Promise<string | null> | undefined;
  #restarted = false;
  #closed = false;
  /** Why the process is not running, once it stopped (or never started). */
  #down: string | null = null;
  /** The current process's last stderr lines, for the messages that say it stopped. */
  #stderr: StderrTail | undefined;

  constructor(
    readonly entry: McpServerStdioEntry,
    readonly serverId: string,
    private readonly cwd: string,
    private readonly log: Logger,
    /** Server → agent notifications (e.g. `notifications/tools/list_changed`). */
    private readonly notify: (notification: Notification) => void,
    /** A request fails after `idleMs` without an answer or progress, and after `totalMs` in all. */
    private readonly timeouts: { idleMs: number; totalMs: number },
  ) {}

  /** The child's pid while it runs (tests check that none is left). */
  get pid(): number | null {
    return this.#transport?.pid ?? null;
  }

  /** Spawns the process and completes the MCP handshake; resolves with why it failed, or null. */
  start(): Promise<string | null> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /**
   * One request to the server; `signal` cancels it there too (MCP's
   * `notifications/cancelled`). The request carries a progress token, so a
   * long tool that reports progress keeps its call alive (each one restarts
   * the idle timeout, up to the total); `onProgress` hears each.
   */
  async request(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal, onProgress?: (progress: Progress) => void): Promise<StdioOutcome> {
    let failure = await this.start();
    // The agent lists a server's tools at each turn's start and to reconnect it: that is when a dead process is started again, once.
    if (failure === null && this.#down !== null && method === "tools/list" && !this.#restarted && !this.#closed) {
      this.#restarted = true;
      this.log.info(`MCP server "${this.entry.name}" stopped (${this.#down}${this.#said()}); starting it again`);
      this.#starting = this.#start();
      failure = await this.#starting;
    }
    if (failure !== null) return { failed: failure };
    if (this.#down !== null) return { failed: `the MCP server process stopped: ${this.#down}${this.#said()}` };
    try {
      const { idleMs, totalMs } = this.timeouts;
      // The SDK sends a progress token, and resets the timeout on progress, only with an `onprogress`.
      const options = { timeout: idleMs, maxTotalTimeout: totalMs, resetTimeoutOnProgress: true, onprogress: (p: Progress) => onProgress?.(p), ...(signal ? { signal } : {}) };
      return { result: await this.#client!.request({ method, ...(params ? { params } : {}) } as never, ResultSchema, options) };
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout && this.#down === null) {
        const total = typeof (err.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === "number";
        return { failed: `${mcpTimeoutReason(method, this.timeouts, total ? "total" : "idle")}, so it was stopped` };
      }
      if (err instanceof McpError && err.code !== -32000 && err.code !== -32001) return { error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } };
      if (this.#down !== null) await afterStderr();
      return { failed: this.#down !== null ? `${this.#down}${this.#said()}` : err instanceof Error ? err.message : String(err) };
    }
  }

  /** Stops the process (SIGTERM, then SIGKILL if it lingers). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#client?.close().catch(() => undefined);
  }

  /** For `process.on("exit")`: no awaiting there, so kill outright. */
  killNow(): void {
    const pid = this.pid;
    if (pid !== null && this.#down === null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  /** What the process that stopped wrote last on stderr, as a clause ("" while it runs). */
  #said(): string {
    return this.#down !== null && this.#down !== "closed" ? (this.#stderr?.describe() ?? "") : "";
  }

  async #start(): Promise<string | null> {
    const { entry } = this;
    const env = { ...getDefaultEnvironment(), ...Object.fromEntries(entry.env.map((e) => [e.name, e.value])) };
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env, cwd: this.cwd, stderr: "pipe" });
    const stderr = new StderrTail((line) => this.log.info(`[mcp ${entry.name}] ${line}`));
    this.#stderr = stderr;
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    const client = new Client({ name: "hermes-edge-proxy", version: "1" }, { capabilities: {} });
    client.fallbackNotificationHandler = async (n) => this.notify(n);
    client.onclose = () => {
      if (this.#client === client && this.#down === null) {
        this.#down = this.#closed ? "closed" : "the process exited";
        if (!this.#closed) void afterStderr().then(() => this.log.warn(`MCP server "${entry.name}" exited${stderr.describe()}`));
      }
    };
    this.#client = client;
    this.#transport = transport;
    this.#down = null;
    try {
      await client.connect(transport, { timeout: START_TIMEOUT_MS });
      this.log.info(`MCP server "${entry.name}" started (pid ${transport.pid ?? "?"})`);
      stderr.forget(); // its start-up banner says nothing about a later exit
      return null;
    } catch (err) {
      await afterStderr();
      // The SDK says only "Connection closed" (-32000) when the process ended; what it wrote says why.
      const cause = err instanceof McpError && err.code === -32000 ? "the process exited during the MCP handshake" : err instanceof Error ? err.message : String(err);
      const why = `could not start \`${[entry.command, ...entry.args].join(" ")}\`: ${cause}${stderr.describe()}`;
      this.log.warn(`MCP server "${entry.name}": ${why}`);
      this.#down = why;
      await client.close().catch(() => undefined);
      return why;
    }
  }
}

/** Lets stderr data already read reach the tail: a process's "close" can come just before its last chunk is handed on. */
function afterStderr(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
