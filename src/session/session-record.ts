/** What a session object knows about itself, kept as one row in its storage. */
export type SessionKind = "root" | "subagent" | "fork";
export type SessionStatus = "active" | "closed";

export interface SessionRecord {
  sessionId: string;
  tenant: string;
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
  lastStopReason: string | null;
  reasoningEffort: "low" | "medium" | "high";
  /** Permission rules the user allowed "for this session" (`edit`, `execute:<program>`). */
  allowRules: string[];
  /** Tokens of the last model call (prompt + completion), for `/context`. */
  lastUsage: number | null;
  /** Text of a prompt whose turn a restart cut off, kept for the user to retry. */
  interruptedPrompt: string | null;
}
