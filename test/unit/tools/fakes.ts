// A scripted editor for tool tests: records every request, answers per method,
// can fail or hang, and advertises exactly the capabilities a test gives it.
import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import { ClientRequestError } from "../../../src/session/client-requests.js";
import type { ClientPort, GateRequest, ToolContext } from "../../../src/tools/tool.js";
import { ToolError } from "../../../src/tools/tool.js";

export interface RecordedRequest {
  method: string;
  params: Record<string, unknown>;
  options: { signal?: AbortSignal; timeoutMs?: number } | undefined;
}

type Handler = (params: Record<string, unknown>) => unknown;

export const ALL_CAPS: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

/** Never settles: stands in for an editor that does not answer. */
export const HANG: Handler = () => new Promise(() => undefined);

export class FakeClient implements ClientPort {
  readonly requests: RecordedRequest[] = [];
  readonly #handlers = new Map<string, Handler>();

  constructor(public capabilities: ClientCapabilities = ALL_CAPS) {}

  on(method: string, handler: Handler): this {
    this.#handlers.set(method, handler);
    return this;
  }

  /** Answers `method` with a JSON-RPC error, as the real client port does. */
  fail(method: string, message: string, code = -32603, data?: unknown): this {
    return this.on(method, () => {
      throw new ClientRequestError({ code, message, ...(data !== undefined ? { data } : {}) });
    });
  }

  methods(): string[] {
    return this.requests.map((r) => r.method);
  }

  request(method: string, params: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<unknown> {
    this.requests.push({ method, params: params as Record<string, unknown>, options });
    const handler = this.#handlers.get(method);
    return new Promise((resolve, reject) => {
      const signal = options?.signal;
      if (signal?.aborted) return reject(new Error("request cancelled"));
      const onAbort = () => reject(new Error("request cancelled"));
      signal?.addEventListener("abort", onAbort, { once: true });
      if (!handler) return reject(new Error(`the fake editor has no handler for ${method}`));
      Promise.resolve()
        .then(() => handler(params as Record<string, unknown>))
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener("abort", onAbort));
    });
  }
}

export interface FakeContext extends ToolContext {
  updates: SessionUpdate[];
  gateRequests: GateRequest[];
  abort(): void;
}

export const CWD = "/work/proj";

/** Node has no D1: any use fails loudly (memory and session search are tested in workerd). */
export const NO_D1 = new Proxy({} as D1Database, {
  get: () => {
    throw new Error("no D1 in unit tests");
  },
});
export const EXTRA_DIR = "/work/lib";

export function fakeContext(client: FakeClient, options: { deny?: string; noGate?: boolean } = {}): FakeContext {
  const controller = new AbortController();
  const updates: SessionUpdate[] = [];
  const gateRequests: GateRequest[] = [];
  const ctx: FakeContext = {
    sessionId: "sess-1",
    tenant: "alpha",
    db: NO_D1,
    cwd: CWD,
    additionalDirectories: [EXTRA_DIR],
    toolCallId: "call-1",
    signal: controller.signal,
    client,
    emit: (update) => updates.push(update),
    updates,
    gateRequests,
    abort: () => controller.abort(),
  };
  if (!options.noGate) {
    ctx.gate = async (request) => {
      gateRequests.push(request);
      if (options.deny) throw new ToolError(options.deny);
    };
  }
  return ctx;
}

/** A terminal that exits at once with `exitCode` and prints `output`. */
export function scriptTerminal(
  client: FakeClient,
  script: { exitCode?: number | null; signal?: string | null; output?: string; truncated?: boolean; wait?: Handler } = {},
): FakeClient {
  const exitStatus = { exitCode: script.exitCode === undefined ? 0 : script.exitCode, signal: script.signal ?? null };
  return client
    .on("terminal/create", () => ({ terminalId: "term-1" }))
    .on("terminal/wait_for_exit", script.wait ?? (() => exitStatus))
    .on("terminal/output", () => ({ output: script.output ?? "", truncated: script.truncated ?? false, exitStatus }))
    .on("terminal/kill", () => ({}))
    .on("terminal/release", () => ({}));
}
