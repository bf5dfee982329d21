/**
 * An MCP tool's ACP kind, from its annotations (hints the server gives; the
 * MCP spec says they are untrusted, so they only choose how a call is shown
 * and whether it asks, never widen what a mode allows).
 */
import type { ToolKind } from "@agentclientprotocol/sdk";

export interface ToolAnnotations {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

export function mcpToolKind(annotations: ToolAnnotations | undefined): ToolKind {
  if (annotations?.readOnlyHint) return annotations.openWorldHint ? "fetch" : "read";
  if (annotations?.destructiveHint) return "edit";
  return "other";
}

/** Read-only tools run without asking; everything else passes the permission gate. */
export function isReadOnlyKind(kind: ToolKind): boolean {
  return kind === "read" || kind === "fetch";
}
