/**
 * Session modes and what each lets through without asking. Sensitive paths
 * always ask, whatever the mode; `read_only` does not even offer edit tools.
 */
import type { SessionMode, SessionModeState, ToolKind } from "@agentclientprotocol/sdk";

export const MODES = [
  { id: "read_only", name: "Read only", description: "Reads and searches; no edits, no commands." },
  { id: "default", name: "Default", description: "Edits and commands ask for permission." },
  { id: "accept_edits", name: "Accept edits", description: "Edits inside the workspace apply without asking; commands ask." },
  { id: "dont_ask", name: "Don't ask", description: "Nothing asks except sensitive paths (.git, .ssh, .env*, private keys)." },
] as const satisfies readonly SessionMode[];

export type ModeId = (typeof MODES)[number]["id"];
export const DEFAULT_MODE: ModeId = "default";

export function isModeId(value: string): value is ModeId {
  return MODES.some((m) => m.id === value);
}

export function modeState(current: string): SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((m) => ({ ...m })) };
}

/** Tool kinds that change the user's machine; `read_only` offers none of them. */
const MUTATING_KINDS: ReadonlySet<ToolKind> = new Set(["edit", "delete", "move", "execute"]);

export function toolAllowedInMode(mode: string, kind: ToolKind): boolean {
  return mode !== "read_only" || !MUTATING_KINDS.has(kind);
}

export type GateKind = "edit" | "execute" | "mcp";

/** Whether a gated action needs the user's answer under `mode` (before remembered rules). */
export function modeDecision(mode: string, kind: GateKind, sensitive: boolean): "ask" | "allow" | "deny" {
  if (mode === "read_only") return "deny";
  if (sensitive) return "ask";
  if (mode === "dont_ask") return "allow";
  if (mode === "accept_edits" && kind === "edit") return "allow";
  return "ask";
}
