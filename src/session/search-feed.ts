/**
 * Feeds the `session_search` index as turns end: the user and agent messages
 * written since the last feed go to D1 in one batch, `FEED_DELAY_MS` after a
 * turn ends (the turns of that second share the batch), never on the path to
 * a first token. The batch also carries the session's pending index write
 * (`IndexWriter.pendingStatement`): one round trip for both. The session
 * record keeps a cursor (the last history row indexed), advanced only once D1
 * has the rows, so a feed cut off by an eviction or a failed write is picked
 * up by the next feed; a session object that starts with rows past its cursor
 * feeds them (`catchUp`).
 */
import type { ChatMessage } from "../agent/model-provider.js";
import type { NewSearchEntry } from "../../schema/search-entries.js";
import type { SearchIndex } from "../db/search-index.js";
import type { IndexWriter } from "./index-writer.js";
import type { SessionStore } from "./session-store.js";

/** A turn's messages are searchable at most this long after it ends. */
export const FEED_DELAY_MS = 1_000;
/** History rows read per batch. */
const ROWS_PER_BATCH = 200;
/** The most of one message that is indexed: search needs its words, not a whole pasted file. */
export const MAX_ENTRY_CHARS = 8_000;

export class SearchFeed {
  #running: Promise<void> | null = null;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly index: SearchIndex,
    private readonly indexWriter: IndexWriter,
  ) {}

  /** A turn ended: its messages are indexed shortly, in the background. Never throws. */
  turnEnded(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#start();
    }, FEED_DELAY_MS);
  }

  /**
   * A fork's copied history is fed before the fork answers: searches from the
   * fork tell the messages it holds by their digests in the index, so its
   * source is never found through them, from its first turn on. Never throws.
   */
  async feedNow(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#start();
    await this.#running;
  }

  /** At object start: rows a feed did not reach before an eviction are fed now. */
  catchUp(): void {
    const record = this.store.record();
    if (record && record.kind !== "subagent" && this.store.lastHistoryId() > (record.searchCursor ?? 0)) this.turnEnded();
  }

  /** `session/delete`: drops a scheduled feed, waits for one under way (so it cannot re-add rows), then removes the session. */
  async deleteSession(sessionId: string): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
    await this.index.deleteSession(sessionId);
  }

  #start(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#feed()
      .catch((err) => console.error("search index feed failed; the next turn end retries", err))
      .finally(() => {
        this.#running = null;
      });
  }

  async #feed(): Promise<void> {
    do {
      this.#again = false;
      for (;;) {
        const record = this.store.record();
        if (!record || record.kind === "subagent") return;
        const rows = this.store.historyAfter(record.searchCursor ?? 0, ROWS_PER_BATCH);
        if (rows.length === 0) break;
        const now = Date.now();
        const entries = await Promise.all(
          rows.flatMap(({ message }) => {
            const entry = entryOf(message);
            return entry ? [withDigest({ tenant: record.tenant, sessionId: record.sessionId, ...entry, createdAt: now })] : [];
          }),
        );
        const pending = entries.length > 0 ? this.indexWriter.pendingStatement() : null;
        await this.index.add(entries, pending?.statement);
        pending?.written();
        this.store.updateRecord({ searchCursor: rows[rows.length - 1]!.id });
        if (rows.length < ROWS_PER_BATCH) break;
      }
    } while (this.#again);
  }
}

/** What of a history message is searchable: the text of user and assistant messages. */
export function entryOf(message: ChatMessage): { role: "user" | "agent"; text: string } | null {
  if (message.role !== "user" && message.role !== "assistant") return null;
  const text = textOf(message.content).trim();
  if (!text) return null;
  return { role: message.role === "user" ? "user" : "agent", text: text.slice(0, MAX_ENTRY_CHARS) };
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).filter(Boolean).join("\n");
}

async function withDigest(entry: Omit<NewSearchEntry, "digest">): Promise<NewSearchEntry> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${entry.role}\n${entry.text}`));
  const digest = [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { ...entry, digest };
}
