/**
 * How the browser workspace maps the agent's absolute paths: everything under
 * {@link WORKSPACE_ROOT} is a file in the page's private file system,
 * anything else is refused. Pure.
 * @module
 */
import { RequestError } from "@agentclientprotocol/sdk";

/** Where the workspace appears to the agent; sessions started in the page use it as their cwd. */
export const WORKSPACE_ROOT = "/workspace";

/** Splits an absolute path inside the mount into its segments; throws -32602 otherwise. */
export function workspaceSegments(path: string): string[] {
  if (!path.startsWith(`${WORKSPACE_ROOT}/`)) {
    throw RequestError.invalidParams({ path }, `${path} is outside the browser workspace (mounted at ${WORKSPACE_ROOT})`);
  }
  const segments = path.slice(WORKSPACE_ROOT.length + 1).split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0 || segments.some((s) => s === "..")) {
    throw RequestError.invalidParams({ path }, `${path} is not a file path inside the browser workspace`);
  }
  // The browser's file system refuses such a name, with a bare "Name is not allowed.".
  if (segments.some((s) => s.includes("\\"))) {
    throw RequestError.invalidParams({ path }, `${path} cannot be a file in the browser workspace: its names may not contain "\\"`);
  }
  return segments;
}

/** ACP's `line` (1-based) and `limit` applied to a file's text. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit ? start + limit : undefined).join("\n");
}

