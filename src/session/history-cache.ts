/**
 * The current segment's model history, held between turns so a turn neither
 * reads nor parses the rows again: loaded once from the stored rows, then
 * appended to as messages are stored. It also keeps the running character
 * count the token estimate needs. Storage stays the truth: a fresh object
 * starts empty and loads, a new segment (compaction, `/reset`) loads again,
 * and a history over the budget is not kept between turns at all.
 */
import { messageChars, rememberJson, tokensFromChars } from "../agent/message-json.js";
import type { ChatMessage } from "../agent/model-provider.js";

/**
 * JSON characters of history held at most (about this many bytes for ASCII
 * text, twice for other text, and as much again for the parsed messages): a
 * Worker's isolate has 128 MB, and a request must still be built beside it.
 */
export const HISTORY_CACHE_BUDGET_CHARS = 16 * 1024 * 1024;

/** A stored message: its JSON, or the message itself when it was built rather than parsed (a prompt's, prompt-refs.ts). */
export type HistoryRow = { body: string; message?: ChatMessage } | { body?: undefined; message: ChatMessage };

export class HistoryCache {
  /** The segment counted; undefined until a load. */
  #segment: number | undefined;
  /** The segment's messages, or null when they exceed the budget (then only the counts are kept). */
  #messages: ChatMessage[] | null = null;
  /** Characters of stored JSON in the segment (what the budget bounds). */
  #jsonChars = 0;
  /** Characters the token estimate counts. */
  #tokenChars = 0;

  constructor(private readonly budgetChars = HISTORY_CACHE_BUDGET_CHARS) {}

  /** True when the cache holds `segment`'s messages whole. */
  holds(segment: number): boolean {
    return this.#segment === segment && this.#messages !== null;
  }

  /** A copy of the held messages (the message objects are shared; nobody changes a stored message). */
  messages(): ChatMessage[] {
    return this.#messages?.slice() ?? [];
  }

  /** The token estimate of `segment`, if it is the one counted. */
  tokens(segment: number): number | undefined {
    return this.#segment === segment ? tokensFromChars(this.#tokenChars) : undefined;
  }

  /** Characters of JSON the messages held take (0 when none are held). */
  get heldChars(): number {
    return this.#messages ? this.#jsonChars : 0;
  }

  /**
   * Parses a segment's rows (in order), counts them, and keeps the messages if
   * they fit the budget. Returns the messages either way; each remembers its row's JSON.
   */
  load(segment: number, rows: Iterable<HistoryRow>): ChatMessage[] {
    const messages: ChatMessage[] = [];
    let jsonChars = 0;
    let tokenChars = 0;
    for (const row of rows) {
      const message = row.body === undefined ? row.message : (row.message ?? (JSON.parse(row.body) as ChatMessage));
      const body = row.body ?? JSON.stringify(message);
      rememberJson(message, body);
      messages.push(message);
      jsonChars += body.length;
      tokenChars += messageChars(message);
    }
    this.#segment = segment;
    this.#jsonChars = jsonChars;
    this.#tokenChars = tokenChars;
    this.#messages = jsonChars <= this.budgetChars ? messages : null;
    return messages;
  }

  /** A message was stored in `segment` as `json`: counted, and held while the segment fits the budget. */
  append(segment: number, message: ChatMessage, json: string): void {
    rememberJson(message, json);
    if (this.#segment !== segment) return;
    this.#jsonChars += json.length;
    this.#tokenChars += messageChars(message);
    if (this.#jsonChars > this.budgetChars) this.#messages = null;
    else this.#messages?.push(message);
  }

  /** Forgets everything; the next read loads from storage. */
  clear(): void {
    this.#segment = undefined;
    this.#messages = null;
    this.#jsonChars = 0;
    this.#tokenChars = 0;
  }
}
