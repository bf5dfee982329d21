/**
 * `_meta.hermes.sessionProvenance`: where the segment the model now sees comes
 * from. Sent on new/load/resume/fork responses and after a compaction.
 */
import type { SessionProvenance } from "@hermes-edge/protocol";
import type { SegmentLineage } from "./session-record.js";

export function provenance(acpSessionId: string, lineage: SegmentLineage, rotated = false): SessionProvenance {
  return {
    acpSessionId,
    currentHermesSessionId: lineage.currentId,
    rootHermesSessionId: lineage.rootId,
    parentHermesSessionId: lineage.parentId,
    sessionKind: lineage.kind,
    compressionDepth: lineage.compressionDepth,
    isContinuation: lineage.kind === "continuation",
    ...(rotated && lineage.previousId ? { previousHermesSessionId: lineage.previousId, reason: "compression" as const } : {}),
  };
}

/** The lineage of a brand-new session: its first segment carries the ACP id. */
export function rootLineage(acpSessionId: string, parent?: { lineage: SegmentLineage; kind: "fork" | "subagent" }): SegmentLineage {
  if (!parent) return { currentId: acpSessionId, rootId: acpSessionId, parentId: null, kind: "root", compressionDepth: 0, previousId: null };
  return {
    currentId: acpSessionId,
    rootId: parent.lineage.rootId,
    parentId: parent.lineage.currentId,
    kind: parent.kind,
    compressionDepth: parent.lineage.compressionDepth,
    previousId: null,
  };
}

/** The lineage after compaction ends `current`. */
export function continuationOf(current: SegmentLineage, newId: string): SegmentLineage {
  return {
    currentId: newId,
    rootId: current.rootId,
    parentId: current.currentId,
    kind: "continuation",
    compressionDepth: current.compressionDepth + 1,
    previousId: current.currentId,
  };
}
