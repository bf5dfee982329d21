/**
 * How the browser workspace maps the agent's absolute paths. Each folder a
 * session works in (its `cwd`, and any additional directory) is one folder in
 * the page's private file system, named after it ({@link folderName}); a path
 * belongs to the longest of the session's folders that holds it, and anything
 * outside them is refused. Errors are sentences for people: the service shows
 * them in permission dialogs and tool calls. Pure.
 * @module
 */
import { RequestError } from "@agentclientprotocol/sdk";

/** The folder the page offers for a new session. */
export const WORKSPACE_ROOT = "/workspace";

/** An invalid-params error whose message is only the sentence (no "Invalid params:" prefix, no data to print as JSON). */
export function workspaceRefusal(message: string): RequestError {
  return new RequestError(-32602, message);
}

/** `/a/./b//c/` → `/a/b/c`; `..` resolved lexically. Null for anything but an absolute POSIX path. */
export function normalizeFolder(path: string): string | null {
  if (!path.startsWith("/")) return null;
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/**
 * The private file system's folder for a session folder: `/workspace` → `workspace` (where the
 * workspace has always been kept), `/home/me/app` → `home%2Fme%2Fapp`, `/` → `%2F`. One folder per
 * path and no two paths share one: the name is the path, escaped.
 */
export function folderName(folder: string): string {
  return folder === "/" ? "%2F" : encodeURIComponent(folder.slice(1));
}

/** `/a` + `b/c` → `/a/b/c`; `/` + `b` → `/b`. */
export function joinFolder(folder: string, relative: string): string {
  return `${folder === "/" ? "" : folder}/${relative.replace(/^\/+/, "")}`;
}

/** A file's path relative to its folder, as the side panel lists it. */
export function relativeTo(folder: string, path: string): string {
  return folder === "/" ? path.slice(1) : path.slice(folder.length + 1);
}

export interface WorkspacePath {
  /** The session folder (normalized) that holds the path. */
  readonly folder: string;
  /** The file's path inside it, one name per segment. */
  readonly segments: string[];
}

/** Finds the session folder that holds `path` (absolute) and splits the rest; throws a -32602 sentence otherwise. */
export function locate(path: string, folders: readonly string[]): WorkspacePath {
  const roots = folders.map((f) => normalizeFolder(f));
  const bad = folders.find((_, i) => roots[i] === null);
  if (bad !== undefined || roots.length === 0) {
    throw workspaceRefusal(
      bad !== undefined
        ? `The browser workspace cannot hold ${bad}: it keeps only folders named by an absolute path such as ${WORKSPACE_ROOT}.`
        : `The browser workspace has no folder for this session: open the session in this page again.`,
    );
  }
  const target = normalizeFolder(path);
  const inside = (root: string) => target !== null && (root === "/" || target === root || target.startsWith(`${root}/`));
  const folder = (roots as string[]).filter(inside).sort((a, b) => b.length - a.length)[0];
  if (!target || !folder) {
    const list = (roots as string[]).join(", ");
    throw workspaceRefusal(`${path} is outside the folder this session works in (${list}): the browser workspace serves only that.`);
  }
  const segments = relativeTo(folder, target).split("/").filter((s) => s !== "");
  if (segments.length === 0) throw workspaceRefusal(`${path} is the session's folder itself, not a file in it.`);
  // The browser's file system refuses such a name, with a bare "Name is not allowed.".
  if (segments.some((s) => s.includes("\\"))) {
    throw workspaceRefusal(`${path} cannot be a file in the browser workspace: its names may not contain "\\".`);
  }
  return { folder, segments };
}

/** ACP's `line` (1-based) and `limit` applied to a file's text. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit ? start + limit : undefined).join("\n");
}
