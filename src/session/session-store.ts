/**
 * A session object's SQLite: its record, the model history, the update log,
 * the prompt queue and the attached connections. History is rows, never one
 * blob (rows are capped at 2 MB). Synchronous, like the DO SQL API beneath it.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ChatMessage } from "../agent/model-provider.js";
import { HistoryCache } from "./history-cache.js";
import type { SessionRecord } from "./session-record.js";

/** Rows per read of the update log: a replay holds about one page at a time. */
export const LOG_PAGE_SIZE = 500;

/** Schema steps in order; step i brings a store from version i to i + 1. Never edit a shipped step. */
const MIGRATIONS: string[][] = [
  [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`,
  // One row per logged frame; `frame` is the exact JSON sent, seq included.
  `CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS prompts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     connection_id TEXT,
     request_id TEXT,
     prompt TEXT NOT NULL,
     state TEXT NOT NULL,
     stop_reason TEXT,
     created_at INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS prompts_state ON prompts (state, id)`,
  `CREATE TABLE IF NOT EXISTS attachments (connection_id TEXT PRIMARY KEY, client_caps TEXT NOT NULL, attached_at INTEGER NOT NULL)`,
  ],
  // v2: compaction starts a new segment; only the current one goes to the model.
  [`ALTER TABLE history ADD COLUMN segment INTEGER NOT NULL DEFAULT 0`, `CREATE INDEX IF NOT EXISTS history_segment ON history (segment, id)`],
  // v3: the MCP servers each attached connection declared, so an evicted object can connect them again.
  [`CREATE TABLE IF NOT EXISTS mcp_servers (connection_id TEXT PRIMARY KEY, entries TEXT NOT NULL)`],
  // v4: who each connection attached as (user and role), so questions reach only those who may answer.
  [`ALTER TABLE attachments ADD COLUMN access TEXT`],
];

export type PromptState = "queued" | "running" | "done" | "interrupted" | "failed";
export type RequestId = string | number | null;

export interface PromptRow {
  id: number;
  connectionId: string | null;
  requestId: RequestId;
  prompt: ContentBlock[];
  state: PromptState;
}

export interface AttachmentRow {
  connectionId: string;
  clientCaps: string;
  attachedAt: number;
  /** JSON of `AttachmentAccess`; null for attachments made before users. */
  access: string | null;
}

export class SessionStore {
  #record: SessionRecord | null | undefined;
  #closed = false;
  #lastSeq: number | undefined;
  /** The current segment's messages between turns (a cache: the rows stay the truth). */
  readonly #history: HistoryCache;

  constructor(
    private readonly sql: SqlStorage,
    history = new HistoryCache(),
  ) {
    this.#history = history;
  }

  /** Runs the schema steps this store has not had yet; a no-op once it is current. */
  migrate(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`);
    const current = this.sql.exec<{ version: number }>(`SELECT version FROM schema_version`).toArray()[0]?.version ?? 0;
    if (current >= MIGRATIONS.length) return;
    for (const step of MIGRATIONS.slice(current)) for (const statement of step) this.sql.exec(statement);
    this.sql.exec(`DELETE FROM schema_version`);
    this.sql.exec(`INSERT INTO schema_version (version) VALUES (?)`, MIGRATIONS.length);
  }

  /**
   * The object's storage is being wiped (`session/delete`): from now on this
   * store answers as if there were no session and keeps no record, so what the
   * old instance still has in flight cannot write one into the fresh storage.
   */
  close(): void {
    this.#closed = true;
    this.#record = null;
    this.#history.clear();
  }

  record(): SessionRecord | null {
    if (this.#closed) return null;
    if (this.#record === undefined) {
      const row = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'session'`).toArray()[0];
      this.#record = row ? (JSON.parse(row.value) as SessionRecord) : null;
    }
    return this.#record;
  }

  saveRecord(record: SessionRecord): void {
    if (this.#closed) return;
    this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('session', ?)`, JSON.stringify(record));
    this.#record = record;
  }

  updateRecord(patch: Partial<SessionRecord>): SessionRecord {
    const current = this.record();
    if (!current) throw new Error("session record missing");
    const next = { ...current, ...patch };
    this.saveRecord(next);
    return next;
  }

  /** A D1 index patch not yet written (see `IndexWriter`); kept here so an eviction cannot lose it. */
  pendingIndexPatch<T>(): T | null {
    const row = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'index_patch'`).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : null;
  }

  savePendingIndexPatch(patch: unknown): void {
    if (patch === null) this.sql.exec(`DELETE FROM meta WHERE key = 'index_patch'`);
    else this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('index_patch', ?)`, JSON.stringify(patch));
  }

  // --- model history -------------------------------------------------------

  /** The segment the model sees; older segments stay readable but are never sent. */
  segment(): number {
    return this.record()?.segment ?? 0;
  }

  appendHistory(message: ChatMessage, segment = this.segment()): number {
    const json = JSON.stringify(message);
    const id = this.sql.exec<{ id: number }>(`INSERT INTO history (segment, body) VALUES (?, ?) RETURNING id`, segment, json).one().id;
    this.#history.append(segment, message, json);
    return id;
  }

  /** `/reset`: the model starts fresh; the rows stay as an ended segment. */
  clearHistory(): void {
    this.updateRecord({ segment: this.segment() + 1 });
  }

  /**
   * A segment's messages (the current one by default), optionally only up to
   * row `untilId`. The current segment whole comes from the history cache,
   * which reads the rows only the first time (or after a new segment).
   */
  history(bounds: { segment?: number; untilId?: number } = {}): ChatMessage[] {
    const current = this.segment();
    const segment = bounds.segment ?? current;
    const rows = () =>
      this.sql.exec<{ body: string }>(`SELECT body FROM history WHERE segment = ? AND id <= ? ORDER BY id`, segment, bounds.untilId ?? Number.MAX_SAFE_INTEGER);
    if (segment !== current || bounds.untilId !== undefined) return rows().toArray().map((r) => JSON.parse(r.body) as ChatMessage);
    if (this.#history.holds(current)) return this.#history.messages();
    return this.#history.load(current, rows());
  }

  /** The token estimate of the current segment, kept as messages are stored (no walk over the history). */
  historyTokens(): number {
    const segment = this.segment();
    const held = this.#history.tokens(segment);
    if (held !== undefined) return held;
    this.history(); // loads and counts the segment
    return this.#history.tokens(segment) ?? 0;
  }

  /** Every stored message of every segment, for REST reads of the full history. */
  allHistory(): { segment: number; message: ChatMessage }[] {
    return this.sql
      .exec<{ segment: number; body: string }>(`SELECT segment, body FROM history ORDER BY id`)
      .toArray()
      .map((r) => ({ segment: r.segment, message: JSON.parse(r.body) as ChatMessage }));
  }

  /** Up to `limit` messages with row id > `afterId`, any segment, in order (feeds the search index). */
  historyAfter(afterId: number, limit: number): { id: number; message: ChatMessage }[] {
    return this.sql
      .exec<{ id: number; body: string }>(`SELECT id, body FROM history WHERE id > ? ORDER BY id LIMIT ?`, afterId, limit)
      .toArray()
      .map((r) => ({ id: r.id, message: JSON.parse(r.body) as ChatMessage }));
  }

  lastHistoryId(): number {
    return this.sql.exec<{ id: number | null }>(`SELECT MAX(id) AS id FROM history`).one().id ?? 0;
  }

  // --- update log ------------------------------------------------------------

  lastSeq(): number {
    this.#lastSeq ??= this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM log`).one().seq ?? 0;
    return this.#lastSeq;
  }

  /** Stores a frame under the next seq; `build` receives the seq to embed. */
  appendLog(build: (seq: number) => string): { seq: number; frame: string } {
    const seq = this.lastSeq() + 1;
    const frame = build(seq);
    this.sql.exec(`INSERT INTO log (seq, frame) VALUES (?, ?)`, seq, frame);
    this.#lastSeq = seq;
    return { seq, frame };
  }

  /** Logged frames with seq in (`afterSeq`, `untilSeq`], for copying into a fork. */
  logRange(afterSeq: number, untilSeq: number): string[] {
    return [...this.logPages(afterSeq, untilSeq)].flat();
  }

  /** Appends frames copied from another session, keeping their seqs (a fork starts from its parent's log). */
  importLog(frames: { seq: number; frame: string }[]): void {
    for (const { seq, frame } of frames) this.sql.exec(`INSERT INTO log (seq, frame) VALUES (?, ?)`, seq, frame);
    this.#lastSeq = undefined;
  }

  /** Up to `limit` logged frames with seq in (`afterSeq`, `untilSeq`], in order, with their seqs (a resumed SSE stream's page). */
  logEntries(afterSeq: number, untilSeq: number, limit = LOG_PAGE_SIZE): { seq: number; frame: string }[] {
    return this.sql
      .exec<{ seq: number; frame: string }>(`SELECT seq, frame FROM log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`, afterSeq, untilSeq, limit)
      .toArray();
  }

  /** Logged frames with seq in (`afterSeq`, `untilSeq`], in order, a page read each time the next is asked for. */
  *logPages(afterSeq: number, untilSeq: number, pageSize = LOG_PAGE_SIZE): Generator<string[]> {
    let cursor = afterSeq;
    for (;;) {
      const rows = this.sql
        .exec<{ seq: number; frame: string }>(`SELECT seq, frame FROM log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`, cursor, untilSeq, pageSize)
        .toArray();
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1]!.seq;
      yield rows.map((r) => r.frame);
      if (rows.length < pageSize) return;
    }
  }

  // --- prompt queue ------------------------------------------------------------

  enqueuePrompt(connectionId: string | null, requestId: RequestId, prompt: ContentBlock[], now: number): number {
    return this.sql
      .exec<{ id: number }>(
        `INSERT INTO prompts (connection_id, request_id, prompt, state, created_at) VALUES (?, ?, ?, 'queued', ?) RETURNING id`,
        connectionId,
        JSON.stringify(requestId),
        JSON.stringify(prompt),
        now,
      )
      .one().id;
  }

  promptsIn(state: PromptState): PromptRow[] {
    return this.sql
      .exec<{ id: number; connection_id: string | null; request_id: string; prompt: string; state: PromptState }>(
        `SELECT id, connection_id, request_id, prompt, state FROM prompts WHERE state = ? ORDER BY id`,
        state,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        connectionId: r.connection_id,
        requestId: JSON.parse(r.request_id) as RequestId,
        prompt: JSON.parse(r.prompt) as ContentBlock[],
        state: r.state,
      }));
  }

  /** Most recent prompts first, for `/retry`. */
  recentPrompts(limit: number): ContentBlock[][] {
    return this.sql
      .exec<{ prompt: string }>(`SELECT prompt FROM prompts WHERE state != 'queued' ORDER BY id DESC LIMIT ?`, limit)
      .toArray()
      .map((r) => JSON.parse(r.prompt) as ContentBlock[]);
  }

  /** A prompt row's state, or undefined when there is no such row. */
  promptState(id: number): PromptState | undefined {
    return this.sql.exec<{ state: PromptState }>(`SELECT state FROM prompts WHERE id = ?`, id).toArray()[0]?.state;
  }

  setPromptState(id: number, state: PromptState, stopReason: string | null = null): void {
    this.sql.exec(`UPDATE prompts SET state = ?, stop_reason = ? WHERE id = ?`, state, stopReason, id);
  }

  // --- attachments -------------------------------------------------------------

  attach(connectionId: string, clientCaps: unknown, now: number, access: unknown = null): void {
    this.sql.exec(
      `INSERT OR REPLACE INTO attachments (connection_id, client_caps, attached_at, access) VALUES (?, ?, ?, ?)`,
      connectionId,
      JSON.stringify(clientCaps ?? {}),
      now,
      access === null ? null : JSON.stringify(access),
    );
  }

  detach(connectionId: string): void {
    this.sql.exec(`DELETE FROM attachments WHERE connection_id = ?`, connectionId);
    this.sql.exec(`DELETE FROM mcp_servers WHERE connection_id = ?`, connectionId);
  }

  /** The MCP server entries a connection declared (new/load/resume/fork); none when empty. */
  saveMcpServers(connectionId: string, entries: unknown[]): void {
    if (entries.length === 0) this.sql.exec(`DELETE FROM mcp_servers WHERE connection_id = ?`, connectionId);
    else this.sql.exec(`INSERT OR REPLACE INTO mcp_servers (connection_id, entries) VALUES (?, ?)`, connectionId, JSON.stringify(entries));
  }

  mcpServers(): { connectionId: string; entries: unknown[] }[] {
    return this.sql
      .exec<{ connection_id: string; entries: string }>(`SELECT connection_id, entries FROM mcp_servers`)
      .toArray()
      .map((r) => ({ connectionId: r.connection_id, entries: JSON.parse(r.entries) as unknown[] }));
  }

  /** Oldest first, the order in which they attached (the update log keeps the newest last). */
  attachments(): AttachmentRow[] {
    return this.sql
      .exec<{ connection_id: string; client_caps: string; attached_at: number; access: string | null }>(
        `SELECT connection_id, client_caps, attached_at, access FROM attachments ORDER BY attached_at ASC, rowid ASC`,
      )
      .toArray()
      .map((r) => ({ connectionId: r.connection_id, clientCaps: r.client_caps, attachedAt: r.attached_at, access: r.access }));
  }
}
