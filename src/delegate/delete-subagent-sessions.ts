/**
 * `session/delete` of a parent takes its sub-agent sessions with it: they are
 * kept out of `session/list`, and once the parent is gone no listing names them
 * any more, so their transcripts (with whatever files the tasks read) would stay
 * stored for good. Each sub-agent's own delete takes its sub-agents in turn.
 */
import { MAX_CHILDREN_LISTED, type SessionIndex } from "../db/session-index.js";

/** Deletes at once, so a large batch does not open hundreds of calls together. */
const AT_ONCE = 10;

export async function deleteSubagentSessions(
  index: Pick<SessionIndex, "children">,
  tenant: string,
  parentId: string,
  destroy: (subagentId: string) => Promise<unknown>,
): Promise<void> {
  // Every id is tried once: one whose delete failed, or left its index row behind, is not listed again.
  const tried = new Set<string>();
  for (;;) {
    const listed = (await index.children(tenant, parentId)).map((row) => row.id);
    const ids = listed.filter((id) => !tried.has(id));
    for (const id of ids) tried.add(id);
    for (let i = 0; i < ids.length; i += AT_ONCE) {
      await Promise.all(
        ids.slice(i, i + AT_ONCE).map((id) =>
          destroy(id).catch((err) => {
            // The parent's delete goes on; the sub-agent's row and storage stay, and its id can still be deleted.
            console.error("deleting a sub-agent session failed", { parentId, subagentId: id }, err);
          }),
        ),
      );
    }
    // A full page may have more behind it; a page with nothing new in it ends it.
    if (ids.length === 0 || listed.length < MAX_CHILDREN_LISTED) return;
  }
}
