/**
 * `session/set_title` (unstable ACP): the title is normalized (one line,
 * trimmed, at most 200 characters), stored in the record and the D1 index, and
 * locks the title so automatic titling (prompt-runner.ts) never replaces it.
 * Attached editors hear it as a `session_info_update`.
 */
import { sessionInfoUpdate } from "../acp/updates.js";
import type { SessionIndex } from "../db/session-index.js";
import type { UpdateLog } from "./update-log.js";

export const MAX_TITLE_CHARS = 200;

/** One line, trimmed and cut to `MAX_TITLE_CHARS` (never between a surrogate pair); "" when nothing is left. */
export function normalizeTitle(raw: string): string {
  const line = raw.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= MAX_TITLE_CHARS ? line : chars.slice(0, MAX_TITLE_CHARS).join("").trimEnd();
}

/** Stores a client-chosen title; returns the title stored. */
export async function setClientTitle(log: UpdateLog, index: SessionIndex, raw: string, now = Date.now()): Promise<string> {
  const title = normalizeTitle(raw);
  const { sessionId } = log.store.record()!;
  // Index first: the response may be followed at once by a session/list that must agree.
  await index.update(sessionId, { title, updatedAt: now });
  log.store.updateRecord({ title, titleLocked: true });
  log.emit(sessionInfoUpdate(title, new Date(now).toISOString()));
  return title;
}
