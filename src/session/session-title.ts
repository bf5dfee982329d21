/**
 * `session/set_title` (unstable ACP): the title is normalized (one line,
 * trimmed, at most 200 characters), stored in the record and the D1 index, and
 * locks the title so automatic titling (prompt-runner.ts) never replaces it.
 * Attached editors hear it as a `session_info_update`.
 */
import { sessionInfoUpdate } from "../acp/updates.js";
import type { IndexWriter } from "./index-writer.js";
import type { UpdateLog } from "./update-log.js";

export const MAX_TITLE_CHARS = 200;

/** One line, trimmed and cut to `MAX_TITLE_CHARS` (never between a surrogate pair); "" when nothing is left. */
export function normalizeTitle(raw: string): string {
  const line = raw.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= MAX_TITLE_CHARS ? line : chars.slice(0, MAX_TITLE_CHARS).join("").trimEnd();
}

/**
 * Stores a client-chosen title; returns the title stored. It goes through the
 * index writer, so an automatic title still held there for a starting turn is
 * replaced rather than written over it later.
 */
export async function setClientTitle(log: UpdateLog, index: IndexWriter, raw: string, now = Date.now()): Promise<string> {
  const title = normalizeTitle(raw);
  // Index first: the response may be followed at once by a session/list that must agree.
  index.update({ title });
  await index.flush();
  log.store.updateRecord({ title, titleLocked: true });
  log.emit(sessionInfoUpdate(title, new Date(now).toISOString()));
  return title;
}
