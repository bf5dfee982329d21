import type { SessionInfo } from "@agentclientprotocol/sdk";
import type { SessionRow } from "../../schema/sessions.js";

/** A D1 index row as ACP `SessionInfo`, lineage in `_meta.hermes`. */
export function sessionInfo(row: SessionRow): SessionInfo {
  return {
    sessionId: row.id,
    cwd: row.cwd,
    additionalDirectories: row.additionalDirectories,
    title: row.title,
    updatedAt: new Date(row.updatedAt).toISOString(),
    _meta: { hermes: { kind: row.kind, parentId: row.parentId, rootId: row.rootId, status: row.status, model: row.model } },
  };
}
