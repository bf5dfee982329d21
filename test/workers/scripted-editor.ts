/**
 * A scripted editor for tool and permission tests: a `TestClient` that answers
 * `fs/*` from an in-memory file map, `terminal/*` from per-command scripts and
 * `session/request_permission` from a settable answer, and records every
 * agent→client request it received.
 */
import { env } from "cloudflare:test";
import { mockCalls, mockScript, TestClient, uniqueKey, type Frame, type OpenOptions } from "./acp-test-client.js";

export const FULL_CAPS = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
/** FULL_CAPS plus form elicitation, which `clarify` needs. */
export const ELICIT_CAPS = { ...FULL_CAPS, elicitation: { form: {} } };

/** How a command behaves in the scripted terminal. `hang`: never exits (until killed). */
export interface CommandScript {
  output?: string;
  exitCode?: number | null;
  signal?: string | null;
  truncated?: boolean;
  hang?: boolean;
}

/** A `session/request_permission` answer selecting `optionId`. */
export const select = (optionId: string) => ({ outcome: { outcome: "selected", optionId } });
/** Never answers (for timeout and cancel tests). */
export const never = () => new Promise<never>(() => undefined);

export class ScriptedEditor {
  readonly files = new Map<string, string>();
  /** Answers each permission request; throw to answer with a JSON-RPC error. */
  permission: (params: any) => unknown = () => select("allow_once");
  commands: (command: string) => CommandScript = () => ({ output: "", exitCode: 0 });
  /** Answers each `elicitation/create` (what `clarify` asks); throw to answer with a JSON-RPC error. */
  elicit: (params: any) => unknown = () => ({ action: "decline" });
  readonly #terminals = new Map<string, { script: CommandScript; killed: boolean }>();

  constructor(readonly client: TestClient) {
    client.onRequest("fs/read_text_file", (p) => this.#read(p));
    client.onRequest("fs/write_text_file", (p) => {
      this.files.set(p.path, p.content);
      return {};
    });
    client.onRequest("session/request_permission", (p) => this.permission(p));
    client.onRequest("elicitation/create", (p) => this.elicit(p));
    client.onRequest("terminal/create", (p) => {
      const terminalId = `term-${this.#terminals.size + 1}`;
      this.#terminals.set(terminalId, { script: this.commands(p.command), killed: false });
      return { terminalId };
    });
    client.onRequest("terminal/wait_for_exit", (p) => {
      const { script } = this.#terminal(p.terminalId);
      return script.hang ? never() : { exitCode: script.exitCode ?? 0, signal: script.signal ?? null };
    });
    client.onRequest("terminal/output", (p) => {
      const terminal = this.#terminal(p.terminalId);
      const { script } = terminal;
      const exitStatus = terminal.killed
        ? { exitCode: null, signal: "SIGKILL" }
        : script.hang
          ? null
          : { exitCode: script.exitCode ?? 0, signal: script.signal ?? null };
      return { output: script.output ?? "", truncated: script.truncated ?? false, exitStatus };
    });
    client.onRequest("terminal/kill", (p) => {
      this.#terminal(p.terminalId).killed = true;
      return {};
    });
    client.onRequest("terminal/release", () => ({}));
  }

  static async open(capabilities: Frame = FULL_CAPS, options: OpenOptions = {}): Promise<ScriptedEditor> {
    return new ScriptedEditor(await TestClient.ready(options, capabilities));
  }

  /** A new session in `cwd`, switched to `mode` when given. */
  async newSession(cwd: string, mode?: string, extra: Frame = {}): Promise<string> {
    const { sessionId } = await this.client.call("session/new", { cwd, mcpServers: [], ...extra });
    if (mode) await this.client.call("session/set_mode", { sessionId, modeId: mode });
    return sessionId as string;
  }

  /** Scripts the model (steps for this turn and any later turn of the session) and runs one prompt. */
  async turn(sessionId: string, key: string, steps: unknown[] | null, text = "go"): Promise<{ stopReason: string; calls: any[] }> {
    if (steps) await mockScript(key, steps);
    const res = await this.client.prompt(sessionId, `${text} [[mock:${key}]]`).response;
    if (res.error) throw new Error(`prompt failed: ${JSON.stringify(res.error)}`);
    return { stopReason: res.result.stopReason, calls: await mockCalls(key) };
  }

  /** Agent→client requests received, optionally only those whose method starts with `prefix`. */
  requests(prefix = ""): Frame[] {
    return this.client.frames.filter((f) => typeof f.method === "string" && f.id !== undefined && f.method.startsWith(prefix));
  }

  /** Methods of the `fs/*`, `terminal/*` and permission requests received, in order. */
  methods(): string[] {
    return this.requests()
      .map((f) => f.method as string)
      .filter((m) => m.startsWith("fs/") || m.startsWith("terminal/") || m === "session/request_permission");
  }

  /** `tool_call` and `tool_call_update` updates of a session (or of one tool call), in order. */
  toolUpdates(sessionId: string, toolCallId?: string): Frame[] {
    return this.client
      .updates(sessionId)
      .map((f) => f.params.update)
      .filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && (!toolCallId || u.toolCallId === toolCallId));
  }

  /** The last update of a tool call (its outcome). */
  outcome(sessionId: string, toolCallId: string): Frame {
    const updates = this.toolUpdates(sessionId, toolCallId);
    if (updates.length === 0) throw new Error(`no updates for ${toolCallId}`);
    return updates.at(-1)!;
  }

  close(): void {
    this.client.close();
  }

  #read(params: { path: string; line?: number; limit?: number }): { content: string } {
    const text = this.files.get(params.path);
    if (text === undefined) throw new Error(`file not found: ${params.path}`);
    if (params.line === undefined && params.limit === undefined) return { content: text };
    const from = (params.line ?? 1) - 1;
    const lines = text.split("\n");
    return { content: lines.slice(from, params.limit === undefined ? undefined : from + params.limit).join("\n") };
  }

  #terminal(id: string): { script: CommandScript; killed: boolean } {
    const terminal = this.#terminals.get(id);
    if (!terminal) throw new Error(`unknown terminal ${id}`);
    return terminal;
  }
}

/** What the model read back for each tool call of a recorded model call: `{[toolCallId]: content}`. */
export function toolResults(call: any): Record<string, string> {
  return Object.fromEntries(call.body.messages.filter((m: any) => m.role === "tool").map((m: any) => [m.tool_call_id, m.content]));
}

/** Names of every tool a recorded model call offered, in order. */
export function allOfferedTools(call: any): string[] {
  return (call.body.tools ?? []).map((t: any) => t.function.name);
}

/** Offered whatever the editor can do: covered by delegation, memory and session-search tests. */
const SERVICE_TOOLS: ReadonlySet<string> = new Set(["delegate_task", "memory", "session_search"]);

/**
 * The tools a recorded model call offered, without the service-side ones
 * (`delegate_task`, `memory`, `session_search`): they do not follow the
 * editor's capabilities, and their own test files cover when they are offered.
 */
export function offeredTools(call: any): string[] {
  return allOfferedTools(call).filter((name) => !SERVICE_TOOLS.has(name));
}

/** What the model reads when it calls a tool it was not offered. */
export function unknownToolResult(name: string, call: any): string {
  return `Error: Unknown tool "${name}". Available: ${allOfferedTools(call).join(", ")}.`;
}

/** A unique workspace root, so remembered "always allow" rules of one test never reach another. */
export function uniqueCwd(): string {
  return `/work/${uniqueKey("ws")}`;
}

/**
 * Runs `fn` with environment values changed. The session object reads its
 * settings when it is constructed (at `session/new`), and shares this isolate's
 * `env`, so only sessions created inside `fn` see the change.
 */
export async function withEnv<T>(patch: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const target = env as unknown as Record<string, string | undefined>;
  const saved = Object.fromEntries(Object.keys(patch).map((k) => [k, target[k]]));
  Object.assign(target, patch);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete target[k];
      else target[k] = v;
    }
  }
}

export { mockCalls, mockScript, uniqueKey };
