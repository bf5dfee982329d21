/**
 * The page's state and everything that changes it: sign-in, the session
 * list, open sessions and their transcripts, prompts (queued while a turn
 * runs), permission requests and questions (elicitations) waiting for the
 * user, the connection's status.
 * Components read a snapshot and call methods; the connection is the client
 * module's `connect()`, the same one integrators use.
 * @module
 */
import type {
  ContentBlock,
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionInfo,
  StopReason,
} from "@agentclientprotocol/sdk";
import { connect, type ConnectionStatus, type HermesConnection } from "../../client/index.js";
import { OpfsWorkspace, WORKSPACE_ROOT } from "../workspace/opfs-workspace.js";
import { clearKey, saveKey } from "./key-store.js";
import { linkInfo } from "./sharing-api.js";
import { readServiceKey } from "./service-key.js";
import { pendingAnswer } from "./pending-answer.js";
import { INITIAL, type AppState, type ElicitationAsk } from "./app-state.js";
import { addLocalPrompt, addNotice, applyUpdate, emptyTranscript, setPromptState, type Transcript } from "./transcript.js";

/** A link's refusal as the page says it: "This link has expired." / "This link was revoked." */
function linkProblem(reason: string): string {
  if (/expired/i.test(reason)) return "This link has expired.";
  if (/revoked/i.test(reason)) return "This link was revoked.";
  return `This link cannot be opened: ${reason}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function turnRunning(meta: unknown): boolean {
  const turn = (meta as { hermes?: { turn?: { state?: string } } } | null | undefined)?.hermes?.turn;
  return turn?.state === "running";
}

export class AppController {
  readonly workspace = new OpfsWorkspace();
  #state: AppState = INITIAL;
  readonly #listeners = new Set<() => void>();
  #connection: HermesConnection | null = null;
  /** Prompt keys per session, oldest first: the first is running, the rest are queued. */
  readonly #prompts = new Map<string, string[]>();
  /** Sessions started on this page that no prompt has been sent to yet. */
  readonly #unused = new Set<string>();
  /** The folders each session here works in (its cwd first): what the browser workspace serves it. */
  readonly #folders = new Map<string, readonly string[]>();
  #nextKey = 1;
  /** The key (or viewer link token) signed in with, for the REST calls of sharing. */
  #key: string | null = null;
  /** Signed in through a viewer link: its token is never kept for the next visit. */
  #viaLink = false;

  get apiKey(): string | null {
    return this.#viaLink ? null : this.#key;
  }

  getState = (): AppState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  #set(patch: Partial<AppState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }

  #transcript(sessionId: string, change: (t: Transcript) => Transcript): void {
    const current = this.#state.transcripts[sessionId] ?? emptyTranscript();
    this.#set({ transcripts: { ...this.#state.transcripts, [sessionId]: change(current) } });
  }

  #setRunning(sessionId: string, running: boolean): void {
    this.#set({ running: { ...this.#state.running, [sessionId]: running } });
  }

  get #agent() {
    if (!this.#connection) throw new Error("not signed in");
    return this.#connection.agent;
  }

  async signIn(input: string, remember: boolean): Promise<void> {
    const reading = readServiceKey(input);
    if (!reading.ok) {
      this.#set({ signInError: reading.message });
      return;
    }
    const key = reading.key;
    this.#set({ phase: "signing-in", signInError: null });
    const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/acp`;
    const fs = OpfsWorkspace.available();
    try {
      this.#connection = await connect({
        url,
        key,
        clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false, elicitation: { form: {} } },
        clientInfo: { name: "hermes-edge-web", title: "hermes-edge web client", version: "0.1.0" },
        onStatus: (status) => this.#onStatus(status),
        handlers: {
          sessionUpdate: (n) => this.#transcript(n.sessionId, (t) => applyUpdate(t, n)),
          turnEnded: ({ sessionId }) => {
            if (!this.#prompts.get(sessionId)?.length) this.#setRunning(sessionId, false);
            this.#withdrawAsks(sessionId);
          },
          requestPermission: (params, signal) => this.#askPermission(params, signal),
          createElicitation: (params, signal) => this.#askQuestion(params, signal),
          readTextFile: (params) => this.workspace.readTextFile(params, this.#folders.get(params.sessionId) ?? []),
          writeTextFile: (params) => this.workspace.writeTextFile(params, this.#folders.get(params.sessionId) ?? []),
        },
      });
    } catch (err) {
      this.#set({ phase: "signed-out", signInError: messageOf(err), status: null });
      return;
    }
    this.#key = key;
    if (!this.#viaLink) saveKey(key, remember);
    // The list is busy from the first frame of the ready page, so nobody (a screen reader, a test) reads its empty start as "no sessions".
    this.#set({ phase: "ready", signInError: null, sessions: { ...this.#state.sessions, loading: true } });
    await this.refreshSessions();
  }

  /** A viewer link's page: the session it opens, read-only and live, or why the link no longer works. */
  async openLink(token: string, sessionId: string): Promise<void> {
    this.#viaLink = true;
    try {
      await linkInfo(token);
    } catch (err) {
      this.#set({ phase: "signed-out", signInError: linkProblem(messageOf(err)) });
      return;
    }
    await this.signIn(token, false);
    if (this.#state.phase === "ready") await this.openSession(sessionId);
  }

  /** The folder the side panel shows: the open session's cwd, else the default. */
  workspaceFolder(sessionId: string | null): string {
    return (sessionId ? this.#folders.get(sessionId)?.[0] : undefined) ?? WORKSPACE_ROOT;
  }

  signOut(): void {
    clearKey();
    const connection = this.#connection;
    this.#connection = null;
    this.#prompts.clear();
    this.#folders.clear();
    this.#unused.clear();
    this.#state = INITIAL;
    connection?.close();
    this.#set({});
  }

  #onStatus(status: ConnectionStatus): void {
    this.#set({ status });
    // Closed for good after signing in (say, the key was revoked): back to the form, with the reason.
    // Nothing of that tenant stays on the page for whoever signs in next, and the key is not tried again.
    if (status.state === "closed" && this.#connection && this.#state.phase === "ready") {
      if (!this.#viaLink) clearKey();
      this.#connection = null;
      this.#prompts.clear();
      this.#folders.clear();
      this.#unused.clear();
      this.#state = { ...INITIAL, status };
      this.#set({ signInError: this.#viaLink ? linkProblem(status.reason) : status.reason });
    }
  }

  async refreshSessions(filter = this.#state.sessions.filter): Promise<void> {
    this.#set({ sessions: { ...this.#state.sessions, filter, loading: true, error: null } });
    try {
      const page = await this.#agent.request("session/list", filter.trim() ? { cwd: filter.trim() } : {});
      this.#set({ sessions: { items: page.sessions, nextCursor: page.nextCursor ?? null, filter, loading: false, error: null } });
    } catch (err) {
      this.#set({ sessions: { ...this.#state.sessions, items: [], nextCursor: null, loading: false, error: messageOf(err) } });
    }
  }

  async loadMoreSessions(): Promise<void> {
    const { filter, nextCursor, items } = this.#state.sessions;
    if (!nextCursor) return;
    this.#set({ sessions: { ...this.#state.sessions, loading: true } });
    try {
      const page = await this.#agent.request("session/list", { cursor: nextCursor, ...(filter.trim() ? { cwd: filter.trim() } : {}) });
      this.#set({ sessions: { items: [...items, ...page.sessions], nextCursor: page.nextCursor ?? null, filter, loading: false, error: null } });
    } catch (err) {
      this.#set({ sessions: { ...this.#state.sessions, loading: false, error: messageOf(err) } });
    }
  }

  async newSession(cwd: string): Promise<void> {
    this.#set({ error: null });
    // A session started here and still empty is the new session asked for: no second empty one in the list.
    const unused = [...this.#unused].find((id) => this.#folders.get(id)?.[0] === cwd.trim() && this.#isEmpty(id));
    if (unused) {
      this.#set({ activeSessionId: unused });
      return;
    }
    if (this.#state.startingIn !== null) return;
    this.#set({ startingIn: cwd.trim() });
    try {
      const created = await this.#agent.request("session/new", { cwd: cwd.trim(), mcpServers: [] });
      const info: SessionInfo = { sessionId: created.sessionId, cwd: cwd.trim(), title: null, updatedAt: new Date().toISOString() };
      this.#folders.set(created.sessionId, [info.cwd]);
      this.#unused.add(created.sessionId);
      this.#transcript(created.sessionId, (t) => ({ ...t, configOptions: created.configOptions ?? t.configOptions }));
      this.#set({ startingIn: null, activeSessionId: created.sessionId, sessions: { ...this.#state.sessions, items: [info, ...this.#state.sessions.items] } });
    } catch (err) {
      // The session open before comes back, as it was.
      this.#set({ startingIn: null, error: `Could not start a session in "${cwd}": ${messageOf(err)}` });
    }
  }

  /** Shows a session, loading its history the first time (and any turn another client is running in it). */
  async openSession(sessionId: string): Promise<void> {
    this.#set({ activeSessionId: sessionId, error: null });
    if (this.#state.transcripts[sessionId]) return;
    const info = this.#state.sessions.items.find((s) => s.sessionId === sessionId);
    this.#transcript(sessionId, () => emptyTranscript());
    try {
      // A load's roots are the session's complete set: give back the ones it has, or an editor's next turn loses them.
      const roots = { cwd: info?.cwd ?? "/", ...(info?.additionalDirectories ? { additionalDirectories: info.additionalDirectories } : {}) };
      this.#folders.set(sessionId, [roots.cwd, ...(roots.additionalDirectories ?? [])]);
      const loaded = await this.#agent.request("session/load", { sessionId, ...roots, mcpServers: [] });
      this.#transcript(sessionId, (t) => ({ ...t, configOptions: loaded.configOptions ?? t.configOptions }));
      this.#setRunning(sessionId, turnRunning(loaded._meta));
    } catch (err) {
      const { [sessionId]: _dropped, ...rest } = this.#state.transcripts;
      this.#set({ transcripts: rest, error: `Could not open the session: ${messageOf(err)}` });
    }
  }

  /** Sends a prompt; while a turn runs it waits in the service's queue and shows as queued here. */
  async prompt(sessionId: string, blocks: ContentBlock[]): Promise<void> {
    this.#unused.delete(sessionId);
    const key = `local:${this.#nextKey++}`;
    const waiting = this.#prompts.get(sessionId) ?? [];
    const queued = waiting.length > 0 || this.#state.running[sessionId] === true;
    this.#prompts.set(sessionId, [...waiting, key]);
    this.#transcript(sessionId, (t) => addLocalPrompt(t, key, blocks, queued ? "queued" : "sent"));
    this.#setRunning(sessionId, true);
    this.#set({ error: null });
    try {
      const { stopReason } = await this.#agent.request("session/prompt", { sessionId, prompt: blocks });
      this.#transcript(sessionId, (t) => setPromptState(t, key, "sent"));
      this.#noteStop(sessionId, stopReason);
    } catch (err) {
      this.#transcript(sessionId, (t) => setPromptState(t, key, "failed", messageOf(err)));
      this.#set({ error: messageOf(err) });
    } finally {
      const rest = (this.#prompts.get(sessionId) ?? []).filter((k) => k !== key);
      this.#prompts.set(sessionId, rest);
      if (rest[0]) this.#transcript(sessionId, (t) => setPromptState(t, rest[0]!, "sent"));
      if (rest.length === 0) this.#setRunning(sessionId, false);
    }
  }

  #isEmpty(sessionId: string): boolean {
    const t = this.#state.transcripts[sessionId];
    return !!t && t.entries.length === 0 && t.queued.length === 0 && this.#state.running[sessionId] !== true;
  }

  #noteStop(sessionId: string, stopReason: StopReason): void {
    if (stopReason === "end_turn") return;
    const text: Record<string, string> = {
      cancelled: "Turn cancelled.",
      max_tokens: "The model stopped: it reached its token limit.",
      max_turn_requests: "The turn stopped: too many model requests.",
      refusal: "The model refused to continue.",
    };
    this.#transcript(sessionId, (t) => addNotice(t, stopReason === "cancelled" ? "info" : "warning", text[stopReason] ?? `Turn ended: ${stopReason}`));
  }

  cancel(sessionId: string): void {
    void this.#agent.notify("session/cancel", { sessionId }).catch((err: unknown) => this.#set({ error: messageOf(err) }));
  }

  async setConfigOption(sessionId: string, configId: string, value: string): Promise<void> {
    try {
      const { configOptions } = await this.#agent.request("session/set_config_option", { sessionId, configId, value });
      this.#transcript(sessionId, (t) => ({ ...t, configOptions }));
    } catch (err) {
      this.#set({ error: `Could not change ${configId}: ${messageOf(err)}` });
    }
  }

  dismissError(): void {
    this.#set({ error: null });
  }

  /**
   * A turn's requests die with it. The service withdraws them with `$/cancel_request`, but one it
   * gave up on while this page was offline (cancelled, timed out) is never re-sent nor withdrawn.
   * Its `_hermes/turn_ended` comes in the replay, after every request of that turn.
   */
  #withdrawAsks(sessionId: string): void {
    for (const ask of this.#state.permissions) if (ask.params.sessionId === sessionId) ask.answer(null);
    for (const ask of this.#state.elicitations) if ((ask.params as { sessionId?: string }).sessionId === sessionId) ask.answer({ action: "cancel" });
  }

  #askPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const id = this.#nextKey++;
    return pendingAnswer<string | null>(
      signal,
      null,
      (answer) => this.#set({ permissions: [...this.#state.permissions, { id, params, answer }] }),
      () => this.#set({ permissions: this.#state.permissions.filter((p) => p.id !== id) }),
    ).then((optionId) => ({ outcome: optionId === null ? { outcome: "cancelled" } : { outcome: "selected", optionId } }));
  }

  #askQuestion(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    // Only form mode is advertised; anything else is not something this page can show.
    if (params.mode !== "form") return Promise.resolve({ action: "decline" });
    const form = params as ElicitationAsk["params"];
    const id = this.#nextKey++;
    return pendingAnswer<CreateElicitationResponse>(
      signal,
      { action: "cancel" },
      (answer) => this.#set({ elicitations: [...this.#state.elicitations, { id, params: form, answer }] }),
      () => this.#set({ elicitations: this.#state.elicitations.filter((q) => q.id !== id) }),
    );
  }
}
