/**
 * The editor's stdio MCP servers, run here on the user's machine because the
 * agent runs on a server. In `session/new`, `load`, `resume` and `fork` each
 * stdio entry is started and rewritten into an `acp` entry `{ name, serverId }`
 * (MCP over ACP); the service's `mcp/message` requests for those ids are
 * answered here, and the servers' notifications go back as `mcp/message`
 * notifications. Entries the editor declared as `acp` itself pass through.
 * A session's servers stop when it is closed, and all of them when the proxy exits.
 * @module
 */
import {
  AGENT_METHODS,
  errorFrame,
  idKey,
  isStdioEntry,
  MAX_MCP_SERVERS,
  MCP_MESSAGE,
  McpBindingError,
  notificationFrame,
  requestCancelled,
  resultFrame,
  toErrorResponse,
  zMcpMessageParams,
  zMcpServerEntry,
  type ClientAnswer,
  type Frame,
  type IncomingRequest,
} from "@hermes-edge/protocol";
import type { Logger } from "./log.js";
import { McpNotificationScope } from "./mcp-notification-scope.js";
import { boundMcpResult, oversizeAnswer } from "./mcp-result-bound.js";
import { StdioMcpServer } from "./stdio-mcp-server.js";

const SETUP_METHODS: ReadonlySet<string> = new Set([AGENT_METHODS.session_new, AGENT_METHODS.session_load, AGENT_METHODS.session_resume, "session/fork"]);

export class StdioMcpHost {
  readonly #servers = new Map<string, StdioMcpServer>();
  readonly #bySession = new Map<string, string[]>();
  /** Setup requests waiting for their answer: the servers they started, and the session (new and fork learn it from the answer). */
  readonly #awaitingId = new Map<string, { started: string[]; sessionId: string | null }>();
  /** Notifications are sent for an active inner request (see `mcp-notification-scope.ts`). */
  readonly #scope = new McpNotificationScope();
  /** The service's `mcp/message` requests being answered here, by id: a `$/cancel_request` stops one. */
  readonly #inFlight = new Map<string, AbortController>();
  #next = 1;

  constructor(
    private readonly log: Logger,
    /** Sends a frame to the service on the current connection. */
    private readonly send: (text: string) => void,
    private readonly callTimeouts: { idleMs: number; totalMs: number },
  ) {}

  /** An editor request: setup methods get their stdio entries started and rewritten; `session/close` stops a session's servers. */
  fromEditor(message: IncomingRequest, text: string): { message: IncomingRequest; text: string } {
    const params = message.params as Record<string, unknown> | undefined;
    if ((message.method === AGENT_METHODS.session_close || message.method === AGENT_METHODS.session_delete) && typeof params?.sessionId === "string") {
      void this.#stopSession(params.sessionId);
      return { message, text };
    }
    if (!SETUP_METHODS.has(message.method) || !Array.isArray(params?.mcpServers)) return { message, text };
    const entries = params.mcpServers as unknown[];
    // The service refuses the request; none of its servers is started for nothing.
    if (entries.length > MAX_MCP_SERVERS) return { message, text };
    const started: string[] = [];
    const rewritten = entries.map((raw) => {
      const parsed = zMcpServerEntry.safeParse(raw);
      // Anything else (and anything malformed) goes to the service, which answers precisely.
      if (!parsed.success || !isStdioEntry(parsed.data)) return raw;
      const serverId = `hermes-proxy-stdio-${this.#next++}`;
      const cwd = typeof params.cwd === "string" ? params.cwd : process.cwd();
      const server = new StdioMcpServer(
        parsed.data,
        serverId,
        cwd,
        this.log,
        (n) => {
          const scoped = this.#scope.notified(serverId, n);
          if (scoped) this.send(notificationFrame(MCP_MESSAGE, scoped));
        },
        this.callTimeouts,
      );
      this.#servers.set(serverId, server);
      void server.start();
      started.push(serverId);
      return { type: "acp", name: parsed.data.name, serverId };
    });
    if (started.length === 0) return { message, text };
    const sessionId = message.method === AGENT_METHODS.session_new || message.method === "session/fork" ? null : (params.sessionId as string);
    if (sessionId) void this.#stopSession(sessionId); // an editor's own load/resume declares the set again
    // They belong to the session once the service accepts the request; a refusal stops them.
    this.#awaitingId.set(idKey(message.id), { started, sessionId });
    const next = { ...message, params: { ...params, mcpServers: rewritten } };
    return { message: next, text: JSON.stringify({ jsonrpc: "2.0", id: message.id, method: message.method, params: next.params }) };
  }

  /** A frame from the service; true when it was an `mcp/message` for one of these servers (answered here). */
  fromService(frame: Frame): boolean {
    if (frame.kind === "response") {
      this.#responded(frame.message.id, frame.message.result, frame.message.error !== undefined);
      return false;
    }
    if (frame.kind === "notification" && frame.message.method === "$/cancel_request") {
      // Ours to stop (the service gave up on it); the editor never saw that request.
      const requestId = (frame.message.params as { requestId?: unknown } | undefined)?.requestId;
      const inFlight = typeof requestId === "string" || typeof requestId === "number" ? this.#inFlight.get(idKey(requestId)) : undefined;
      inFlight?.abort();
      return inFlight !== undefined;
    }
    if (frame.kind !== "request" || frame.message.method !== MCP_MESSAGE) return false;
    const parsed = zMcpMessageParams.safeParse(frame.message.params);
    if (!parsed.success || !parsed.data.serverId.startsWith("hermes-proxy-stdio-")) return false;
    void this.#answer(frame.message.id, parsed.data);
    return true;
  }

  /** Pids of the running servers (tests check that none outlives its session). */
  pids(): number[] {
    return [...this.#servers.values()].map((s) => s.pid).filter((p): p is number => p !== null);
  }

  async closeAll(): Promise<void> {
    const servers = [...this.#servers.values()];
    this.#servers.clear();
    this.#bySession.clear();
    await Promise.all(servers.map((s) => s.close()));
  }

  killNow(): void {
    for (const server of this.#servers.values()) server.killNow();
  }

  async #answer(id: string | number, params: { serverId: string; requestId: string; method: string; params?: Record<string, unknown> | null | undefined }): Promise<void> {
    const server = this.#servers.get(params.serverId);
    if (!server) {
      this.send(errorFrame(id, { code: McpBindingError.serverUnavailable, message: `no MCP server ${params.serverId} runs in this proxy (its session was closed)` }));
      return;
    }
    for (const held of this.#scope.started(params.serverId, params.requestId)) this.send(notificationFrame(MCP_MESSAGE, held));
    const { _meta: meta, ...inner } = params.params ?? {};
    const controller = new AbortController();
    this.#inFlight.set(idKey(id), controller);
    // The server's progress goes to the service under its own token, so its wait for the answer is extended too.
    const progressToken = (meta as { progressToken?: unknown } | undefined)?.progressToken;
    const onProgress =
      typeof progressToken === "string" || typeof progressToken === "number"
        ? (progress: Record<string, unknown>) =>
            this.send(notificationFrame(MCP_MESSAGE, { serverId: params.serverId, requestId: params.requestId, method: "notifications/progress", params: { ...progress, progressToken } }))
        : undefined;
    const outcome = await server.request(params.method, Object.keys(inner).length ? inner : undefined, controller.signal, onProgress).finally(() => {
      this.#inFlight.delete(idKey(id));
      this.#scope.ended(params.serverId, params.requestId);
    });
    if (controller.signal.aborted) this.send(errorFrame(id, toErrorResponse(requestCancelled())));
    else if ("failed" in outcome) this.send(errorFrame(id, { code: McpBindingError.backendFailed, message: `MCP server "${server.entry.name}": ${outcome.failed}` }));
    else if ("error" in outcome) this.send(resultFrame(id, { error: outcome.error }));
    else if (params.method === "tools/call") this.send(resultFrame(id, { result: boundMcpResult(outcome.result) }));
    else {
      // Only a call's result can be cut; any other answer that large (a huge tool list) is refused, saying by how much.
      const tooLarge = oversizeAnswer(server.entry.name, params.method, outcome.result);
      this.send(tooLarge ? errorFrame(id, { code: McpBindingError.backendFailed, message: tooLarge }) : resultFrame(id, { result: outcome.result }));
    }
  }

  /** The proxy answered the editor itself (the service was unreachable, say): setup requests among them did not happen. */
  answeredLocally(answers: readonly ClientAnswer[]): void {
    for (const answer of answers) this.#responded(answer.id, answer.result, "error" in answer && answer.error !== undefined);
  }

  #responded(id: unknown, result: unknown, failed: boolean): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const awaiting = this.#awaitingId.get(idKey(id));
    if (!awaiting) return;
    this.#awaitingId.delete(idKey(id));
    const answered = (result as { sessionId?: unknown } | undefined)?.sessionId;
    const sessionId = awaiting.sessionId ?? (typeof answered === "string" ? answered : null);
    if (failed || sessionId === null) {
      void Promise.all(awaiting.started.map((serverId) => this.#stop(serverId)));
      return;
    }
    this.#bySession.set(sessionId, awaiting.started);
  }

  async #stopSession(sessionId: string): Promise<void> {
    const ids = this.#bySession.get(sessionId) ?? [];
    this.#bySession.delete(sessionId);
    await Promise.all(ids.map((serverId) => this.#stop(serverId)));
  }

  async #stop(serverId: string): Promise<void> {
    const server = this.#servers.get(serverId);
    this.#servers.delete(serverId);
    this.#scope.forget(serverId);
    await server?.close();
  }
}
