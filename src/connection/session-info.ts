import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";
import type { SessionRow } from "../../schema/sessions.js";

/** A D1 index row as ACP `SessionInfo` (with the unstable `archived`), lineage in `_meta.hermes`. */
export function sessionInfo(row: SessionRow): SessionInfo {
  return {
    sessionId: row.id,
    cwd: row.cwd,
    additionalDirectories: row.additionalDirectories,
    title: row.title,
    updatedAt: new Date(row.updatedAt).toISOString(),
    // Unstable ACP: with `sessionCapabilities.archive` advertised, every listed session says whether it is archived.
    archived: row.archived,
    _meta: { hermes: { kind: row.kind, parentId: row.parentId, rootId: row.rootId, status: row.status, model: row.model } },
  };
}
