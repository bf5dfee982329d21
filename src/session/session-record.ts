/** What a session object knows about itself, kept as one row in its storage. */
export type SessionKind = "root" | "subagent" | "fork";
export type SegmentKind = SessionKind | "continuation";

export interface SegmentLineage {
  currentId: string;
  rootId: string;
  parentId: string | null;
  kind: SegmentKind;
  /** Segments ended by compression along the chain to the root. */
  compressionDepth: number;
  previousId: string | null;
}
export type SessionStatus = "active" | "closed";

export interface SessionRecord {
  sessionId: string;
  tenant: string;
  /** The user who made it (a sub-agent: its parent's); null or absent when an admin key made it. */
  owner?: string | null;
  /** Whose shares apply (a sub-agent: its parent's access root); null or absent: its own. */
  accessRoot?: string | null;
  cwd: string;
  additionalDirectories: string[];
  model: string;
  mode: string;
  title: string | null;
  kind: SessionKind;
  parentId: string | null;
  rootId: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  /** Null when the last turn failed (see `lastError`) or none has ended. */
  lastStopReason: string | null;
  /** The JSON-RPC error the last turn failed with; null (or absent) when it stopped normally. */
  lastError?: { code: number; message: string } | null;
  /** Who sent the prompt of the last finished turn, so a reconnecting proxy can tell if it was its own. */
  lastTurn?: { requestId: string | number | null; connectionId: string | null };
  reasoningEffort: "low" | "medium" | "high";
  /** Permission rules the user allowed "for this session" (`edit`, `execute:<program>`). */
  allowRules: string[];
  /** Tokens of the last model call (prompt + completion), for `/context`. */
  lastUsage: number | null;
  /** Index of the history segment the model sees (compaction and /reset start a new one). */
  segment: number;
  /** Lineage of the current segment (a "Hermes session" in the seeds' terms). */
  lineage: SegmentLineage;
  /** Text of a prompt whose turn a restart cut off, kept for the user to retry. */
  interruptedPrompt: string | null;
  /** `session/set_title` named the session: automatic titling leaves it alone. */
  titleLocked?: boolean;
  /** Project memory as the system prompt shows it, frozen for one history segment (memory-snapshot.ts). */
  memorySnapshot?: { segment: number; cwd: string; text: string };
  /** History rows up to this id are in the search index (search-feed.ts). */
  searchCursor?: number;
  /** The tenant's turn slot this session holds while its queue works (see `SessionSlots`). */
  tenantLease?: import("../tenant/tenant-slots.js").TenantLease | null;
  /** Usage of finished turns the tenant object has not been sent yet (see `SessionSlots`). */
  pendingUsage?: import("../tenant/usage.js").UsageDelta | null;
  /** Usage taken from `pendingUsage` and sent under an id, not yet confirmed; sent again (same id) with the next call. */
  usageBatch?: import("../tenant/usage.js").UsageBatch | null;
  /** Sub-agent depth and role (absent on roots and forks: depth 0), and whether new spawns are paused. */
  delegation?: {
    depth?: number;
    role?: "leaf" | "orchestrator";
    parentToolCallId?: string;
    spawnPaused?: boolean;
    /** Sub-agents this session is running now, so a restart can stop them (or, when its turn resumes, wait for them again). */
    running?: string[];
    /** The running turn's `delegate_task` calls: each task's sub-agent and delivered result (`spawn-ledger.ts`). */
    ledger?: import("../delegate/spawn-ledger.js").SpawnLedger;
  };
}
