/**
 * Runs the built CLI (`dist/cli.js`) as an editor would: a child process with
 * ndjson on stdin/stdout. Every stdout line must be a JSON-RPC 2.0 frame;
 * anything else is recorded in `garbage` so tests can assert stdout stays clean.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";
import { afterAll } from "vitest";

// Each test file imports this module afresh (the project isolates files): its proxies' homes go after it.
afterAll(removeScratchDirs);

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/**
 * How long a test waits for a frame or a stderr line by default. Only a failing test waits
 * this long; on a loaded 2-core machine a healthy answer can take seconds, so it is generous.
 */
export const WAIT_MS = 20_000;

/**
 * A service URL nothing answers on. Not a stopped server's own URL: the kernel may hand its port to another
 * test's server at once (a `--check` then met that server's 401 instead of a refused connection). No test
 * listens on port 1.
 */
export const UNREACHABLE_URL = "ws://127.0.0.1:1/acp";

export type Message = Record<string, unknown> & { id?: string | number | null; method?: string; params?: Record<string, unknown> };

export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = scratchDir("hermes-proxy-test-");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("HERMES_EDGE_")) env[key] = value;
  }
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...extra };
}

export class ProxyProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Message[] = [];
  readonly garbage: string[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #buffer = "";
  #nextId = 1;
  #waiters: Array<() => void> = [];

  constructor(args: string[], env: Record<string, string> = isolatedEnv()) {
    this.child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf("\n")) !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        try {
          const message = JSON.parse(line) as Message;
          if (message["jsonrpc"] !== "2.0") this.garbage.push(line);
          else this.messages.push(message);
        } catch {
          this.garbage.push(line);
        }
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once("exit", (code, signal) => resolve({ code, signal })));
  }

  send(message: Message): void {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  }

  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  /** Sends a request and returns the response with its id. */
  async request(method: string, params: unknown, timeoutMs = WAIT_MS): Promise<Message> {
    const id = this.#nextId++;
    this.send({ id, method, params: params as Record<string, unknown> });
    return this.waitFor((m) => m.id === id && !("method" in m), timeoutMs, `response to ${method} #${id}`);
  }

  /** Resolves with the first message (already received or future) matching `predicate`. */
  async waitFor(predicate: (m: Message) => boolean, timeoutMs = WAIT_MS, what = "message"): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForStderr(pattern: RegExp, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderr)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in stderr:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

export const INIT_PARAMS = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
  clientInfo: { name: "test-editor", version: "1.0.0" },
};

/** INIT_PARAMS from an editor that itself asks for `_hermes/turn_ended`. */
export const INIT_PARAMS_TURN_ENDED = {
  ...INIT_PARAMS,
  clientCapabilities: { ...INIT_PARAMS.clientCapabilities, _meta: { hermes: { turnEnded: true } } },
};

/** The `agent_message_chunk` texts the editor received for a session, in order. */
export function chunkTexts(messages: readonly Message[], sessionId: string): string[] {
  return messages
    .filter((m) => m.method === "session/update" && m.params?.["sessionId"] === sessionId)
    .map((m) => {
      const update = m.params?.["update"] as { content?: { text?: string } } | undefined;
      return update?.content?.text ?? "";
    });
}
