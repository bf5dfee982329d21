/**
 * A session object's SQLite: its record, the model history, the update log,
 * the prompt queue and the attached connections. History is rows, never one
 * blob (rows are capped at 2 MB). Synchronous, like the DO SQL API beneath it.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import type { ChatMessage } from "../agent/model-provider.js";
import { userMessage } from "../agent/prompt-content.js";
import { HistoryCache, type HistoryRow } from "./history-cache.js";
import { blockJsons, cutContent, pasteContent, PromptRefs } from "./prompt-refs.js";
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
  // v5: a prompt's content is stored once (prompt-refs.ts), in prompt_content: a row of its own, so
  // the prompt's state changes (queued, running, done) do not rewrite it (SQLite rewrites a whole
  // record on UPDATE, and left the old copy's pages free). A history row with a prompt_id is that
  // prompt's user message (its body a placeholder); a log row with a prompt_id is a user_message_chunk
  // frame with block `block` of the prompt replaced by null at `at`. Rows from before keep their content
  // where it was (prompts.prompt, a full body, a full frame) and read as they always did. Prompts
  // are never deleted while the session lives: these rows need them.
  [
    `CREATE TABLE IF NOT EXISTS prompt_content (prompt_id INTEGER PRIMARY KEY, prompt TEXT NOT NULL)`,
    `ALTER TABLE history ADD COLUMN prompt_id INTEGER`,
    `ALTER TABLE log ADD COLUMN prompt_id INTEGER`,
    `ALTER TABLE log ADD COLUMN block INTEGER`,
    `ALTER TABLE log ADD COLUMN at INTEGER`,
  ],
];

/** A history row as read, joined with the prompt it references (if any). */
/**
 * What `MIGRATIONS` build, in one step per table, for a new object: every
 * session starts with one, and `ALTER TABLE` makes SQLite parse the schema
 * again each time. `session-schema.test.ts` checks that both give the same
 * tables, columns and indexes.
 */
const FRESH_SCHEMA: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL, segment INTEGER NOT NULL DEFAULT 0, prompt_id INTEGER)`,
  `CREATE INDEX history_segment ON history (segment, id)`,
  `CREATE TABLE log (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL, prompt_id INTEGER, block INTEGER, at INTEGER)`,
  `CREATE TABLE prompts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     connection_id TEXT,
     request_id TEXT,
     prompt TEXT NOT NULL,
     state TEXT NOT NULL,
     stop_reason TEXT,
     created_at INTEGER NOT NULL)`,
  `CREATE INDEX prompts_state ON prompts (state, id)`,
  `CREATE TABLE attachments (connection_id TEXT PRIMARY KEY, client_caps TEXT NOT NULL, attached_at INTEGER NOT NULL, access TEXT)`,
  `CREATE TABLE mcp_servers (connection_id TEXT PRIMARY KEY, entries TEXT NOT NULL)`,
  `CREATE TABLE prompt_content (prompt_id INTEGER PRIMARY KEY, prompt TEXT NOT NULL)`,
];

type StoredHistoryRow = {
  id: number;
  segment: number;
  body: string;
  prompt_id: number | null;
  prompt: string | null;
};

/** A prompt's content: in prompt_content since v5, in prompts.prompt before (with `p`, `c` the joined rows). */
const PROMPT_JSON = `COALESCE(c.prompt, p.prompt)`;

const HISTORY_SELECT = `SELECT h.id AS id, h.segment AS segment, h.body AS body, h.prompt_id AS prompt_id, ${PROMPT_JSON} AS prompt
  FROM history h LEFT JOIN prompts p ON p.id = h.prompt_id LEFT JOIN prompt_content c ON c.prompt_id = h.prompt_id`;

const PROMPT_SELECT = `SELECT p.id AS id, p.connection_id AS connection_id, p.request_id AS request_id, ${PROMPT_JSON} AS prompt, p.state AS state
  FROM prompts p LEFT JOIN prompt_content c ON c.prompt_id = p.id`;

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

/**
 * The body of a history row that references its prompt: never read by this
 * code, but valid JSON, so code from before (a rolled-back deploy) reads a
 * placeholder message instead of failing on the row. Likewise a prompts row's
 * own `prompt` column holds an empty prompt since the content moved beside it.
 */
const PROMPT_BODY = JSON.stringify({ role: "user", content: "[this prompt is stored in prompt_content]" });

/** What a reference to a prompt row that is gone reads as (never expected: prompt rows are not deleted). */
const missingPrompt = (): ChatMessage => ({ role: "user", content: "[this prompt is no longer stored]" });
const MISSING_BLOCK_JSON = JSON.stringify({ type: "text", text: "[this prompt is no longer stored]" });

export class SessionStore {
  #record: SessionRecord | null | undefined;
  #closed = false;
  #lastSeq: number | undefined;
  #lastHistoryId: number | undefined;
  /**
   * The queued prompts, oldest first, once read (undefined: not yet). Only this
   * store changes a prompt's state, so the queue is read from storage once per
   * instance; the runner asks for it several times a turn.
   */
  #queued: PromptRow[] | undefined;
  /** The pending index patch as stored (undefined: not read yet); read several times a turn, written only here. */
  #indexPatch: unknown;
  /** The current segment's messages between turns (a cache: the rows stay the truth). */
  readonly #history: HistoryCache;
  /** Which objects are a prompt row's parsed content (what may be stored as a reference to it). */
  readonly #refs = new PromptRefs();

  constructor(
    private readonly sql: SqlStorage,
    history = new HistoryCache(),
  ) {
    this.#history = history;
  }

  /** Runs the schema steps this store has not had yet; a no-op once it is current. */
  migrate({ fresh = true }: { fresh?: boolean } = {}): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`);
    const current = this.sql.exec<{ version: number }>(`SELECT version FROM schema_version`).toArray()[0]?.version ?? 0;
    if (current >= MIGRATIONS.length) return;
    // A store with no version yet may still hold the first step's tables (made before schema_version was).
    const empty = current === 0 && this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'meta'`).toArray().length === 0;
    const steps = fresh && empty ? [FRESH_SCHEMA] : MIGRATIONS.slice(current);
    for (const step of steps) for (const statement of step) this.sql.exec(statement);
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
    this.#lastHistoryId = undefined;
    this.#queued = [];
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
    if (this.#indexPatch === undefined) {
      const row = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'index_patch'`).toArray()[0];
      this.#indexPatch = row ? JSON.parse(row.value) : null;
    }
    return this.#indexPatch as T | null;
  }

  savePendingIndexPatch(patch: unknown): void {
    if (patch === null) this.sql.exec(`DELETE FROM meta WHERE key = 'index_patch'`);
    else this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('index_patch', ?)`, JSON.stringify(patch));
    this.#indexPatch = patch;
  }

  // --- model history -------------------------------------------------------

  /** The segment the model sees; older segments stay readable but are never sent. */
  segment(): number {
    return this.record()?.segment ?? 0;
  }

  /**
   * Stores a message. One built from a stored prompt (a copy compaction keeps)
   * is stored as a reference to the prompt's row.
   */
  appendHistory(message: ChatMessage, segment = this.segment()): number {
    return this.#appendHistory(message, segment, this.#refs.rowOf(message));
  }

  /** Stores a prompt's user message; a prompt read from its row (`promptsIn`, `recentPrompts`) is not copied. */
  appendPrompt(prompt: ContentBlock[], segment = this.segment()): number {
    return this.#appendHistory(userMessage(prompt), segment, this.#refs.rowOf(prompt));
  }

  #appendHistory(message: ChatMessage, segment: number, promptId: number | undefined): number {
    const json = JSON.stringify(message);
    const id = this.sql
      .exec<{ id: number }>(`INSERT INTO history (segment, body, prompt_id) VALUES (?, ?, ?) RETURNING id`, segment, promptId === undefined ? json : PROMPT_BODY, promptId ?? null)
      .one().id;
    if (promptId !== undefined) this.#refs.mark(message, promptId);
    this.#history.append(segment, message, json);
    this.#lastHistoryId = id;
    return id;
  }

  /**
   * A history row's message (and its stored JSON, when the row has it). A
   * prompt's message is built from its prompt row, as it was when stored.
   */
  #historyRow(row: StoredHistoryRow): HistoryRow & { message: ChatMessage } {
    if (row.prompt_id === null) return { body: row.body, message: JSON.parse(row.body) as ChatMessage };
    const message = row.prompt === null ? missingPrompt() : userMessage(this.#refs.parse(row.prompt_id, row.prompt));
    this.#refs.mark(message, row.prompt_id);
    return { message };
  }

  /** History rows read one at a time, as the caller iterates. */
  *#historyRows(where: string, ...params: SqlStorageValue[]): Generator<HistoryRow & { message: ChatMessage; segment: number }> {
    for (const row of this.sql.exec<StoredHistoryRow>(`${HISTORY_SELECT} ${where}`, ...params)) yield { ...this.#historyRow(row), segment: row.segment };
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
    const rows = () => this.#historyRows(`WHERE h.segment = ? AND h.id <= ? ORDER BY h.id`, segment, bounds.untilId ?? Number.MAX_SAFE_INTEGER);
    if (segment !== current || bounds.untilId !== undefined) return [...rows()].map((r) => r.message);
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
    return [...this.#historyRows(`ORDER BY h.id`)].map(({ segment, message }) => ({ segment, message }));
  }

  /** Up to `limit` messages with row id > `afterId`, any segment, in order (feeds the search index). */
  historyAfter(afterId: number, limit: number): { id: number; message: ChatMessage }[] {
    return this.sql
      .exec<StoredHistoryRow>(`${HISTORY_SELECT} WHERE h.id > ? ORDER BY h.id LIMIT ?`, afterId, limit)
      .toArray()
      .map((r) => ({ id: r.id, message: this.#historyRow(r).message }));
  }

  lastHistoryId(): number {
    this.#lastHistoryId ??= this.sql.exec<{ id: number | null }>(`SELECT MAX(id) AS id FROM history`).one().id ?? 0;
    return this.#lastHistoryId;
  }

  // --- update log ------------------------------------------------------------

  lastSeq(): number {
    this.#lastSeq ??= this.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM log`).one().seq ?? 0;
    return this.#lastSeq;
  }

  /**
   * Stores a frame under the next seq; `build` receives the seq to embed. The
   * `update` it carries, when given, lets a block of a stored prompt be kept
   * as a reference to its row (see `logPages`).
   */
  appendLog(build: (seq: number) => string, update?: SessionUpdate): { seq: number; frame: string } {
    const seq = this.lastSeq() + 1;
    const frame = build(seq);
    const content = update?.sessionUpdate === "user_message_chunk" ? update.content : undefined;
    const ref = this.#refs.blockOf(content);
    const cut = ref ? cutContent(frame, JSON.stringify(content)) : null;
    if (ref && cut) this.sql.exec(`INSERT INTO log (seq, frame, prompt_id, block, at) VALUES (?, ?, ?, ?, ?)`, seq, cut.frame, ref.promptId, ref.block, cut.at);
    else this.sql.exec(`INSERT INTO log (seq, frame) VALUES (?, ?)`, seq, frame);
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
    return this.#logEntryPages(afterSeq, untilSeq, limit).next().value ?? [];
  }

  /** Logged frames with seq in (`afterSeq`, `untilSeq`], in order, a page read each time the next is asked for. */
  *logPages(afterSeq: number, untilSeq: number, pageSize = LOG_PAGE_SIZE): Generator<string[]> {
    for (const page of this.#logEntryPages(afterSeq, untilSeq, pageSize)) yield page.map((e) => e.frame);
  }

  /**
   * Pages of logged frames with their seqs. A frame stored with a reference
   * gets its prompt's block back; each prompt a page references is read once for it.
   */
  *#logEntryPages(afterSeq: number, untilSeq: number, pageSize: number): Generator<{ seq: number; frame: string }[]> {
    let cursor = afterSeq;
    for (;;) {
      const rows = this.sql
        .exec<{ seq: number; frame: string; prompt_id: number | null; block: number | null; at: number | null }>(
          `SELECT seq, frame, prompt_id, block, at FROM log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
          cursor,
          untilSeq,
          pageSize,
        )
        .toArray();
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1]!.seq;
      const prompts = new Map<number, string[]>();
      const blocksOf = (id: number) => {
        let blocks = prompts.get(id);
        if (!blocks) {
          const row = this.sql.exec<{ prompt: string }>(`${PROMPT_SELECT} WHERE p.id = ?`, id).toArray()[0];
          prompts.set(id, (blocks = row ? blockJsons(row.prompt) : []));
        }
        return blocks;
      };
      yield rows.map((r) => ({
        seq: r.seq,
        frame: r.prompt_id === null ? r.frame : pasteContent({ frame: r.frame, at: r.at ?? 0 }, blocksOf(r.prompt_id)[r.block ?? 0] ?? MISSING_BLOCK_JSON),
      }));
      if (rows.length < pageSize) return;
    }
  }

  // --- prompt queue ------------------------------------------------------------

  /**
   * Stores a prompt, queued or (when its turn starts at once) running: its row
   * (an empty prompt in the v4 column) and its content beside it. The row's
   * prompt is read back from what was stored, as `promptsIn` reads it, so it
   * may be referenced (see `appendPrompt`).
   */
  enqueuePrompt(connectionId: string | null, requestId: RequestId, prompt: ContentBlock[], now: number, state: "queued" | "running" = "queued"): PromptRow {
    // Read before the insert: read after it, the new row would come from storage and be pushed again.
    const queued = this.#queuedRows();
    const id = this.sql
      .exec<{ id: number }>(
        `INSERT INTO prompts (connection_id, request_id, prompt, state, created_at) VALUES (?, ?, '[]', ?, ?) RETURNING id`,
        connectionId,
        JSON.stringify(requestId),
        state,
        now,
      )
      .one().id;
    const json = JSON.stringify(prompt);
    this.sql.exec(`INSERT INTO prompt_content (prompt_id, prompt) VALUES (?, ?)`, id, json);
    const row: PromptRow = { id, connectionId, requestId, prompt: this.#refs.parse(id, json), state };
    if (state === "queued") queued.push(row);
    return row;
  }

  /** Prompts in `state`, oldest first; each prompt is its row's parsed content (see `appendPrompt`). */
  promptsIn(state: PromptState): PromptRow[] {
    return state === "queued" ? [...this.#queuedRows()] : this.#readPrompts(state);
  }

  /** The oldest queued prompt, or undefined when none is queued. */
  nextQueued(): PromptRow | undefined {
    return this.#queuedRows()[0];
  }

  /** Whether prompt row `id` is still queued (a cancel may have ended it while its turn slot was on the way). */
  isQueued(id: number): boolean {
    return this.#queuedRows().some((row) => row.id === id);
  }

  #queuedRows(): PromptRow[] {
    this.#queued ??= this.#readPrompts("queued");
    return this.#queued;
  }

  #readPrompts(state: PromptState): PromptRow[] {
    return this.sql
      .exec<{ id: number; connection_id: string | null; request_id: string; prompt: string; state: PromptState }>(
        `${PROMPT_SELECT} WHERE p.state = ? ORDER BY p.id`,
        state,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        connectionId: r.connection_id,
        requestId: JSON.parse(r.request_id) as RequestId,
        prompt: this.#refs.parse(r.id, r.prompt),
        state: r.state,
      }));
  }

  /** Most recent prompts first, for `/retry`. */
  recentPrompts(limit: number): ContentBlock[][] {
    return this.sql
      .exec<{ id: number; prompt: string }>(`${PROMPT_SELECT} WHERE p.state != 'queued' ORDER BY p.id DESC LIMIT ?`, limit)
      .toArray()
      .map((r) => this.#refs.parse(r.id, r.prompt));
  }

  /** Prompts only ever leave the queue (a new one is `enqueuePrompt`ed). */
  setPromptState(id: number, state: Exclude<PromptState, "queued">, stopReason: string | null = null): void {
    this.sql.exec(`UPDATE prompts SET state = ?, stop_reason = ? WHERE id = ?`, state, stopReason, id);
    if (this.#queued) this.#queued = this.#queued.filter((row) => row.id !== id);
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
