/**
 * One ACP session: its storage, update log and attachments, settings, prompt
 * runner and sub-agents, and what each RPC entry point of the session object
 * does. The Durable Object class only forwards to these methods; everything
 * here is plain TypeScript over the object's SQLite.
 */
import { invalidRequest, isStdioEntry, mcpCallTimeouts, readOnly, sessionNotFound, type ShareRole, type ErrorResponse, type McpMessageParams, type McpServerEntry, type RequestId } from "@hermes-edge/protocol";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { OpenAIProvider } from "../agent/openai-provider.js";
import { upstreamSettingsLogged } from "../agent/providers/upstream-config.js";
import { coalesceMs, delegationSettings, mcpCallTimeoutMs, modelSettings, permissionTimeoutMs, type ModelSettings } from "../config.js";
import { PermissionRuleStore } from "../db/permission-rules.js";
import { SegmentIndex } from "../db/segment-index.js";
import { MemoryStore } from "../db/memory-store.js";
import { SearchIndex } from "../db/search-index.js";
import { SessionIndex } from "../db/session-index.js";
import type { SubagentResult } from "../delegate/subagent-result.js";
import type { ForwardedRequest, ForwardOutcome, SubagentCommand, SubagentControlResult, SubagentSpec, SubagentStopCause } from "../delegate/subagent-spec.js";
import { deleteSubagentSessions } from "../delegate/delete-subagent-sessions.js";
import { interruptSubagent } from "../delegate/nested-interrupt.js";
import { SubagentTask } from "../delegate/subagent-task.js";
import { TaskRecord } from "../delegate/task-record.js";
import { Subagents } from "../delegate/subagents.js";
import type { RpcOutcome } from "../durable/rpc-outcome.js";
import type { Env } from "../env.js";
import { McpServers } from "../mcp/mcp-servers.js";
import { SessionSlots } from "../tenant/session-slots.js";
import { toolsFor } from "../tools/index.js";
import { allows, answers, roleOf } from "./access.js";
import type { ConnectionRef } from "./connection-ref.js";
import { createSession, type CreateSessionInit } from "./create-session.js";
import { completedBoundary, importSnapshot, takeSnapshot, type ForkSnapshot } from "./fork.js";
import { IndexWriter } from "./index-writer.js";
import type { Deliver } from "./update-log.js";
import { PromptRunner } from "./prompt-runner.js";
import { memoryForPrompt } from "./memory-snapshot.js";
import { provenance } from "./provenance.js";
import { SearchFeed } from "./search-feed.js";
import type { SessionRecord } from "./session-record.js";
import type { LogPage, OpenOptions, SessionHistory, SessionRpc } from "./session-rpc.js";
import { SettingsController } from "./session-settings.js";
import { normalizeTitle, setClientTitle } from "./session-title.js";
import { SessionStore } from "./session-store.js";
import type { TurnSetup } from "./turn-setup.js";
import { TurnSteps } from "./turn-steps.js";
import { availableCommands } from "./slash-commands.js";
import { UpdateLog } from "./update-log.js";
import { UpstreamTunnels } from "./upstream-tunnels.js";
import type { UpstreamMessage } from "@hermes-edge/protocol";

/** What only the Durable Object can do for its session. */
export interface SessionHost {
  /** Sends frames to a connection object; false when it has no socket any more. */
  deliver(connectionId: string): Deliver;
  /** Keeps the object awake while a turn runs (an alarm heartbeat). */
  keepAlive(running: boolean): void;
  /** Wakes the object later (an alarm) to send usage a failed call to the tenant left: see {@link Session.alarm}. */
  retryLater(): void;
  /** Deletes all of the object's storage (`session/delete`). */
  wipe(): Promise<void>;
  /** Another session object (a sub-agent or a parent). */
  session(sessionId: string): DurableObjectStub<SessionRpc>;
}

export class Session {
  readonly store: SessionStore;
  readonly log: UpdateLog;
  readonly index: SessionIndex;
  readonly indexWriter: IndexWriter;
  readonly segments: SegmentIndex;
  readonly settings: ModelSettings;
  readonly config: SettingsController;
  readonly runner: PromptRunner;
  /** This session as a parent: the sub-agents it runs. */
  readonly subagents: Subagents;
  /** This session as a sub-agent: the task its parent gave it. */
  readonly task: SubagentTask;
  /** Feeds `session_search` as turns end; `session/delete` takes the session out of it. */
  readonly searchFeed: SearchFeed;
  /** The project memory its system prompt's snapshot comes from. */
  readonly memory: MemoryStore;
  /** The tenant's turn and sub-agent slots, and the usage turns add. */
  readonly slots: SessionSlots;
  /** Upstream ACP agents run by an attached proxy (`acp:<id>` models). */
  readonly tunnels: UpstreamTunnels;
  /** The attached editors' MCP servers, per connection, in memory. */
  readonly mcp: McpServers;
  /** `session/delete` began: this instance takes nothing more (the object starts a fresh one). */
  #deleted = false;
  /** A close or delete is stopping the turn and letting connections go. */
  #stopping = false;

  constructor(
    sql: SqlStorage,
    env: Env,
    private readonly host: SessionHost,
  ) {
    this.store = new SessionStore(sql);
    this.store.migrate();
    this.log = new UpdateLog(this.store, host.deliver);
    this.index = new SessionIndex(env.DB);
    this.indexWriter = new IndexWriter(this.store, this.index);
    this.segments = new SegmentIndex(env.DB);
    this.tunnels = new UpstreamTunnels(this.log);
    const base = modelSettings(env);
    const tunnels = this.tunnels;
    // The proxy-hosted upstreams depend on who is attached, so the list is read when used.
    this.settings = { ...base, get models() { return [...base.models, ...tunnels.models().filter((m) => !base.models.includes(m))]; } };
    this.searchFeed = new SearchFeed(this.store, new SearchIndex(env.DB), this.indexWriter);
    this.memory = new MemoryStore(env.DB);
    this.slots = new SessionSlots(env, this.store, host.retryLater);
    this.config = new SettingsController(this.log, () => this.settings.models, (record) => this.indexWriter.update({ mode: record.mode, model: record.model }));
    const delegation = delegationSettings(env);
    // One stub per session keeps calls to it in the order they were made.
    const stubs = new Map<string, DurableObjectStub<SessionRpc>>();
    const stub = (id: string) => stubs.get(id) ?? stubs.set(id, host.session(id)).get(id)!;
    this.subagents = new Subagents(this.log, this.index, delegation, stub, this.slots);
    this.mcp = new McpServers({ log: this.log, allowPrivate: env.HERMES_ALLOW_PRIVATE_MCP === "1", newId: () => crypto.randomUUID(), callTimeouts: mcpCallTimeouts(mcpCallTimeoutMs(env)) });
    // Also when the outbox finds a connection's socket gone, not only on an explicit detach.
    this.log.onDetach = (connectionId) => {
      this.tunnels.detached(connectionId);
      this.mcp.detach(connectionId);
    };
    this.subagents.mcp = this.mcp;
    this.subagents.models = () => this.settings.models;
    this.subagents.tunnels = this.tunnels;
    // An object evicted while editors stayed attached connects their servers again (they are not in history).
    for (const { connectionId, entries } of this.store.mcpServers()) {
      if (this.log.isAttached(connectionId)) this.mcp.attach(connectionId, entries as McpServerEntry[]);
    }
    const settings = this.settings;
    const turns: TurnSetup = {
      log: this.log,
      settings,
      // One client for the object's lifetime: building it per turn is measurable on the first-token path.
      provider: settings.apiKey ? new OpenAIProvider({ baseURL: settings.baseURL, apiKey: settings.apiKey }) : null,
      // `delegate_task` is in the registry only while this session may delegate.
      tools: (client) => [...toolsFor(client, { canDelegate: this.subagents.canDelegate() }), ...this.mcp.tools()],
      permissionRules: new PermissionRuleStore(env.DB),
      segments: this.segments,
      db: env.DB,
      memory: this.memory,
      permissionTimeoutMs: permissionTimeoutMs(env),
      coalesceMs: coalesceMs(env),
      newId: () => crypto.randomUUID(),
      countModelCall: (usage) => this.slots.record({ modelCalls: 1, inputTokens: usage?.promptTokens ?? 0, outputTokens: usage?.completionTokens ?? 0 }),
      countToolCall: () => this.slots.record({ toolCalls: 1 }),
      subagents: () => (this.subagents.canDelegate() ? this.subagents : undefined),
      upstreams: { settings: upstreamSettingsLogged(env), hosted: (id, preferred) => this.tunnels.endpoint(id, preferred) },
      mcp: this.mcp,
      steps: new TurnSteps(sql),
      config: this.config,
      index: this.indexWriter,
      slots: this.slots,
      keepAlive: host.keepAlive,
      turnEnded: () => this.searchFeed.turnEnded(),
      turnBegan: () => this.subagents.turnBegan(),
    };
    this.runner = new PromptRunner(turns);
    this.task = new SubagentTask(turns, this.runner, {
      parent: stub,
      record: new TaskRecord(sql),
      index: this.index,
      tunnels: this.tunnels,
      maxSpawnDepth: delegation.maxSpawnDepth,
    });
    if (this.store.record()) this.#recover();
  }

  // --- a connection's ACP methods -------------------------------------------------------

  /** `session/new`; the response goes out through the outbox so later updates follow it. */
  async create(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit): Promise<null> {
    const result = await createSession(this.store, this.index, conn, init, this.settings, this.memory);
    this.log.attach(conn);
    await this.#answerOpen(conn, requestId, result, "log");
    this.#attachMcp(conn.connectionId, init.mcpServers ?? []);
    return null;
  }

  forkSnapshot(conn: ConnectionRef): ForkSnapshot {
    this.#own(conn);
    return takeSnapshot(this.store, completedBoundary(this.store, this.runner.runningTurnStart()));
  }

  async createFork(conn: ConnectionRef, requestId: RequestId, init: CreateSessionInit, snapshot: ForkSnapshot): Promise<null> {
    const source = snapshot.record;
    const result = await createSession(this.store, this.index, conn, {
      ...init,
      kind: "fork",
      parentId: source.sessionId,
      rootId: source.rootId,
      model: source.model,
      mode: source.mode,
      parentLineage: source.lineage,
    }, this.settings, this.memory);
    const title = source.title ? normalizeTitle(`Fork: ${source.title}`) : null;
    this.store.updateRecord({ reasoningEffort: source.reasoningEffort, title });
    if (title) this.indexWriter.update({ title });
    importSnapshot(this.store, snapshot, init.sessionId);
    await this.searchFeed.feedNow();
    this.log.attach(conn);
    await this.#answerOpen(conn, requestId, result, "log");
    this.#attachMcp(conn.connectionId, init.mcpServers ?? []);
    return null;
  }

  /** `session/load` (full replay) and `session/resume` (replay only after `afterSeq`, if given). */
  async open(conn: ConnectionRef, requestId: RequestId, options: OpenOptions): Promise<null> {
    const { sessionId } = this.#own(conn);
    // ACP: the roots a load/resume names are the complete set; omitted means none.
    // A viewer's editor watches: its roots do not become the session's.
    const roots = allows(conn.role ?? "admin", "drive") ? { cwd: options.cwd, additionalDirectories: options.additionalDirectories ?? [] } : {};
    // Index first, so a list right after the response agrees; no await may come between attach and replay.
    this.indexWriter.update({ status: "active", ...roots });
    await this.indexWriter.flush();
    this.log.attach(conn);
    this.tunnels.attached(conn.connectionId);
    const { lineage } = this.store.updateRecord({ status: "active", ...roots });
    if (options.replay || options.afterSeq !== undefined) this.log.replay(conn.connectionId, options.afterSeq ?? 0);
    const meta = { hermes: { turn: this.runner.turnState(), sessionProvenance: provenance(sessionId, lineage) } };
    await this.#answerOpen(conn, requestId, { _meta: meta }, options.replay ? "replayed" : "send");
    this.#attachMcp(conn.connectionId, options.mcpServers ?? []);
    this.#warmMemory();
    return null;
  }

  async prompt(conn: ConnectionRef, requestId: RequestId, prompt: ContentBlock[]): Promise<null> {
    // A close or delete under way lets every connection go: a prompt now would run after it.
    if (this.#stopping) throw sessionNotFound();
    this.#ownAttached(conn);
    // A sub-agent busy with its task takes no prompts: they would interleave its history.
    if (this.task.running) throw invalidRequest("this sub-agent is working on its delegated task; prompt it once the task has finished");
    // Checked again once the prompt has its turn slot: another connection may have deleted the session meanwhile
    // (a close cancels it). Not the attachment: a prompt whose connection dropped while it waited still runs, as a queued one does.
    await this.runner.enqueue(conn, requestId, prompt, () => {
      if (this.#deleted) throw sessionNotFound();
      this.#own(conn);
    });
    // The answer waits until workerd has nothing else to run (a timer fires only then). Answered at
    // once, it went out first when the prompt's commit opened the output gate, and the connection
    // object's work on it came before the model request of the turn the prompt started: 0.15–0.4 ms
    // on the way to the first token (figure 1b, BENCHMARKS.md, session 22).
    await new Promise((resolve) => setTimeout(resolve, 0));
    return null;
  }

  setConfig(conn: ConnectionRef, configId: string, value: unknown): { configOptions: ReturnType<SettingsController["set"]> } {
    this.#ownAttached(conn);
    return { configOptions: this.config.set(configId, value) };
  }

  cancel(conn: ConnectionRef): null {
    this.#ownAttached(conn);
    this.runner.cancelAll();
    this.task.interrupt("interrupted");
    return null;
  }

  cancelRequest(conn: ConnectionRef, requestId: RequestId): void {
    if (this.log.isAttached(conn.connectionId) || conn.closed) this.runner.cancelRequest(conn.connectionId, requestId);
  }

  /** `session/close`: the turn stops, connections are let go, history stays. */
  async close(conn: ConnectionRef): Promise<Record<string, never>> {
    // Someone the session is shared with closes only their own view of it.
    if (!allows(conn.role ?? "admin", "manage")) {
      this.#own(conn);
      this.log.detach(conn.connectionId);
      return {};
    }
    await this.#stop(conn);
    this.store.updateRecord({ status: "closed" });
    this.indexWriter.update({ status: "closed" });
    await this.indexWriter.flush();
    return {};
  }

  /** `session/delete`: storage and index row go. Unknown (or foreign) ids succeed too, as ACP asks. */
  async destroy(conn: ConnectionRef): Promise<Record<string, never>> {
    const record = this.store.record();
    if (!record || record.tenant !== conn.tenant) return {};
    if (!allows(conn.role ?? "admin", "manage")) throw readOnly();
    this.#deleted = true;
    await this.#stop(conn);
    await deleteSubagentSessions(this.index, record.tenant, record.sessionId, async (id) => {
      // RPC typing drops the error branch (its `data` is unknown); the value is the plain outcome.
      const outcome = (await this.host.session(id).destroy(conn)) as RpcOutcome;
      if (!outcome.ok) throw new Error(outcome.error.message);
    });
    await this.searchFeed.deleteSession(record.sessionId);
    await this.index.deleteWithSegments(record.sessionId);
    this.store.close();
    await this.host.wipe();
    return {};
  }

  /** `session/set_title` (unstable): any connection of the owning tenant, attached or not. */
  async setTitle(tenant: string, title: string): Promise<{ title: string }> {
    this.#own({ tenant });
    return { title: await setClientTitle(this.log, this.indexWriter, title) };
  }

  clientResponse(connectionId: string, response: { id: string | number; result?: unknown; error?: ErrorResponse }): boolean {
    // Only a connection that may answer was asked; a viewer's "answer" settles nothing.
    return answers(this.log.roleOf(connectionId)) && this.log.requests.settle(response);
  }

  detach(connectionId: string): void {
    this.log.detach(connectionId);
  }

  /** A resumed SSE stream's catch-up: what the log holds after `afterSeq`, for a connection still attached. */
  logAfter(connectionId: string, afterSeq: number, untilSeq: number): LogPage | null {
    return this.log.page(connectionId, afterSeq, untilSeq);
  }

  /** The session's shares changed: connections of `user` (`*`: anyone's) take their new role, or are let go. */
  reshare(tenant: string, user: string, shares: { user: string; role: ShareRole }[]): string[] {
    const record = this.#own({ tenant });
    const facts = { id: record.sessionId, owner: record.owner ?? null, accessRoot: record.accessRoot ?? null, shares };
    return this.log.reshare(user, (u) => roleOf({ user: u }, facts));
  }

  /** A message from a proxy-hosted upstream agent, for whichever of this session's tunnels it belongs to. */
  upstreamMessage(connectionId: string, params: UpstreamMessage): void {
    this.tunnels.receive(connectionId, params);
  }

  mcpNotification(connectionId: string, params: McpMessageParams): void {
    if (this.log.isAttached(connectionId)) this.mcp.notify(connectionId, params);
  }

  // --- REST ------------------------------------------------------------------------------------

  readHistory(tenant: string): SessionHistory {
    const record = this.#own({ tenant });
    return { sessionId: record.sessionId, currentSegment: record.segment, messages: this.store.allHistory() };
  }

  async controlSubagents(tenant: string, command: SubagentCommand): Promise<SubagentControlResult> {
    this.#own({ tenant });
    if (command.action === "interrupt") return interruptSubagent(this.subagents, (id) => this.host.session(id), tenant, command.subagentId);
    return this.subagents.control(command);
  }

  // --- sub-agents ------------------------------------------------------------------------------

  runSubagentTask(spec: SubagentSpec): Promise<SubagentResult> {
    return this.task.run(spec);
  }

  interruptSubagentTask(cause: SubagentStopCause): void {
    this.task.interrupt(cause);
  }

  forwardEditorRequest(subagentId: string, request: ForwardedRequest): Promise<ForwardOutcome> {
    return this.subagents.forward(subagentId, request);
  }

  forwardUpstreamMessage(subagentId: string, params: unknown): boolean {
    return this.subagents.forwardUpstream(subagentId, params);
  }

  relaySubagentUpdates(subagentId: string, frames: string[]): boolean {
    return this.subagents.relay(subagentId, frames);
  }

  // --- inside ---------------------------------------------------------------------------------

  /** The record if `conn`'s tenant owns this session; otherwise the same -32002 as for an unknown id. */
  #own(conn: Pick<ConnectionRef, "tenant">): SessionRecord {
    const record = this.store.record();
    if (!record || record.tenant !== conn.tenant) throw sessionNotFound();
    return record;
  }

  /** Like `#own`, and the connection must have attached the session with a role that may drive it. */
  #ownAttached(conn: ConnectionRef): SessionRecord {
    const record = this.#own(conn);
    const role = this.log.roleOf(conn.connectionId) ?? (conn.closed ? conn.role : undefined);
    if (role === undefined) throw sessionNotFound();
    if (!allows(role, "drive")) throw readOnly();
    return record;
  }

  /**
   * Answers new/load/resume/fork with modes and
   * config options, then the command list: logged once when a session is made
   * (`log`), replayed by a load (`replayed`), sent unlogged to a resuming client (`send`).
   */
  async #answerOpen(conn: ConnectionRef, requestId: RequestId, result: Record<string, unknown>, commands: "log" | "replayed" | "send"): Promise<void> {
    this.log.respond(conn.connectionId, requestId, { result: { ...result, ...this.config.sessionState() } });
    const update = { sessionUpdate: "available_commands_update", availableCommands: availableCommands() } as const;
    if (commands === "log") this.log.emit(update, { only: conn.connectionId });
    else if (commands === "send") this.log.sendUnlogged(conn.connectionId, update);
    this.log.resendOrphaned(conn.connectionId);
    await this.log.drained(conn.connectionId);
  }

  /** Reads the project memory for the next turn's system prompt now, so the turn does not wait on D1 for it. */
  #warmMemory(): void {
    void memoryForPrompt(this.store, this.memory);
  }

  /** The servers a connection declares live with its attachment, in memory and (for an eviction) in storage. */
  #attachMcp(connectionId: string, declared: McpServerEntry[]): void {
    // A stdio server cannot run here (the proxy runs them): its environment, often secrets, is not kept.
    const entries = declared.map((e) => (isStdioEntry(e) ? { ...e, env: [] } : e));
    this.store.saveMcpServers(connectionId, entries);
    this.mcp.attach(connectionId, entries);
  }

  /** Cancels the turn, answers queued prompts and lets every connection go (close and delete). */
  async #stop(conn: ConnectionRef): Promise<void> {
    this.#own(conn);
    this.#stopping = true;
    try {
      this.runner.cancelAll();
      await this.runner.idle();
      // The drained queue may keep its turn slot for a next prompt that will not come now.
      await this.slots.releaseTurn();
      this.log.detachAll();
      this.mcp.closeAll();
    } finally {
      this.#stopping = false;
    }
  }

  /**
   * The object's alarm. While a turn runs it is the heartbeat that renews the
   * tenant's slot; once idle, it sends the usage a failed call to the tenant
   * left (a failure again asks for another alarm) and drops a counted batch
   * from the record (`SessionSlots.tidy`).
   */
  alarm(running: boolean): void {
    // Neither is awaited: the alarm handler waits on no other object.
    if (running) this.runner.renewTurnSlot();
    else void this.slots.tidy();
  }

  /**
   * After a restart: the cut turn resumes (or, past its bounds, is recorded as
   * interrupted), a sub-agent's task too. The sub-agents of a resumed turn
   * run on and its delegation waits for them again; those of a turn that
   * does not resume are recorded as interrupted. Pending index writes and
   * search rows go out; a turn slot the old object held goes back, with the
   * usage it had not sent.
   */
  #recover(): void {
    // The old instance's turn slot goes back first; a resumed turn then takes one of its own.
    const released = this.slots.releaseTurn().catch(() => undefined);
    const resumed =
      this.store.record()!.kind === "subagent" ? this.task.recover(released) : this.runner.resumeInterrupted(released).decision?.action === "resume";
    void this.indexWriter.flush();
    this.searchFeed.catchUp();
    if (resumed) {
      this.subagents.adopt();
      return;
    }
    void this.subagents.recoverInterrupted().then((ids) => {
      if (ids.length === 0) return;
      const n = ids.length === 1 ? "1 sub-agent was" : `${ids.length} sub-agents were`;
      this.log.emit(agentMessageChunk(`\n\n⚠️ ${n} stopped and recorded as interrupted: the service restarted while they worked.`, crypto.randomUUID()));
    });
  }
}
