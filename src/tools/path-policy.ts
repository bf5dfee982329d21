/**
 * Which paths a tool may hand to the editor. Pure string logic: the service
 * never sees the editor's file system, so it cannot resolve symlinks; it only
 * guarantees that what it asks for is absolute, normalized and lexically inside
 * the session's `cwd` or one of its `additionalDirectories`.
 *
 * POSIX paths (`/home/a/x`) and Windows paths (`C:\a\x`, `\\server\share\x`)
 * are both understood, because editors on either kind of machine connect.
 */
import { ToolError } from "./tool.js";

export interface PathScope {
  cwd: string;
  additionalDirectories: readonly string[];
}

type Flavor = "posix" | "windows";

interface Normalized {
  path: string;
  flavor: Flavor;
}

const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;
const WINDOWS_UNC = /^\\\\[^\\/]+[\\/][^\\/]+/;

function flavorOf(path: string): Flavor | null {
  if (path.startsWith("/")) return "posix";
  if (WINDOWS_DRIVE.test(path) || WINDOWS_UNC.test(path)) return "windows";
  return null;
}

/** Resolves `.` and `..` lexically; `..` at the root stays at the root, like the OS does. */
function normalize(path: string, flavor: Flavor): Normalized {
  if (flavor === "posix") {
    return { path: "/" + resolveSegments(path.split("/")).join("/"), flavor };
  }
  const unified = path.replace(/\//g, "\\");
  let root: string;
  let rest: string;
  if (unified.startsWith("\\\\")) {
    const [server = "", share = "", ...tail] = unified.slice(2).split("\\");
    root = `\\\\${server}\\${share}`;
    rest = tail.join("\\");
  } else {
    root = unified.slice(0, 2).toUpperCase();
    rest = unified.slice(3);
  }
  const segments = resolveSegments(rest.split("\\"));
  return { path: segments.length ? `${root}\\${segments.join("\\")}` : `${root}\\`, flavor };
}

function resolveSegments(parts: string[]): string[] {
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out;
}

function separator(flavor: Flavor): string {
  return flavor === "posix" ? "/" : "\\";
}

/** Windows file systems are case-insensitive, so containment compares folded case there. */
function isInside(candidate: Normalized, root: Normalized): boolean {
  if (candidate.flavor !== root.flavor) return false;
  const fold = (s: string) => (candidate.flavor === "windows" ? s.toLowerCase() : s);
  const path = fold(candidate.path);
  const base = fold(root.path);
  if (path === base) return true;
  const prefix = base.endsWith(separator(root.flavor)) ? base : base + separator(root.flavor);
  return path.startsWith(prefix);
}

function normalizeRoot(dir: string): Normalized | null {
  const flavor = flavorOf(dir);
  return flavor ? normalize(dir, flavor) : null;
}

/**
 * The normalized absolute form of `path` if a tool may use it in this session.
 *
 * @throws ToolError for relative paths, NUL bytes, `..` escapes and paths
 *   outside `cwd` and `additionalDirectories`; the message says what to do.
 */
export function resolveToolPath(path: string, scope: PathScope): string {
  if (path.includes("\0")) {
    throw new ToolError("The path contains a NUL byte, which no file name can contain.");
  }
  if (path.trim() === "") {
    throw new ToolError(`The path is empty; give an absolute path inside ${scope.cwd}.`);
  }
  const flavor = flavorOf(path);
  if (!flavor) {
    throw new ToolError(
      `"${path}" is a relative path. Use an absolute path inside the workspace, e.g. ${joinForHint(scope.cwd, path)}.`,
    );
  }
  const candidate = normalize(path, flavor);
  const roots = [scope.cwd, ...scope.additionalDirectories].map(normalizeRoot).filter((r): r is Normalized => r !== null);
  if (roots.some((root) => isInside(candidate, root))) return candidate.path;
  const allowed = roots.map((r) => r.path).join(", ");
  const climbs = path.split(/[\\/]/).includes("..");
  throw new ToolError(
    climbs
      ? `"${path}" escapes the workspace through ".." (it resolves to ${candidate.path}). Allowed roots: ${allowed}.`
      : `"${path}" is outside the workspace. Tools may only touch paths under: ${allowed}.`,
  );
}

function joinForHint(cwd: string, relative: string): string {
  const flavor = flavorOf(cwd) ?? "posix";
  const sep = separator(flavor);
  const trimmed = relative.replace(/^\.[\\/]/, "");
  return cwd.endsWith(sep) ? cwd + trimmed : cwd + sep + trimmed;
}

/** `path` relative to `cwd` when it lies inside it (for short titles and search output), else unchanged. */
export function displayPath(path: string, cwd: string): string {
  const flavor = flavorOf(path);
  const root = normalizeRoot(cwd);
  if (!flavor || !root) return path;
  const candidate = normalize(path, flavor);
  if (!isInside(candidate, root)) return path;
  const rest = candidate.path.slice(root.path.length).replace(/^[\\/]/, "");
  return rest === "" ? "." : rest;
}

const SENSITIVE_DIRECTORIES = new Set([".git", ".ssh"]);
const PRIVATE_KEY_NAMES = new Set(["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"]);

/**
 * True for paths whose edits always ask permission, whatever the mode:
 * anything under `.git/` or `.ssh/`, `.env` and `.env.*`, and private keys.
 * Case-insensitive, because on macOS and Windows `.GIT` is `.git`; names are
 * read as Windows opens them too (`.git.` and `.env ` lose their trailing dots
 * and spaces, `.env::$DATA` is `.env`), which on other systems only asks more.
 */
export function isSensitivePath(path: string): boolean {
  const segments = path
    .split(/[\\/]/)
    .map((s) => s.toLowerCase().replace(/:.*$/, "").replace(/[. ]+$/, ""))
    .filter((s) => s !== "");
  const name = segments.at(-1);
  if (name === undefined) return false;
  if (segments.some((s) => SENSITIVE_DIRECTORIES.has(s))) return true;
  if (name === ".env" || name.startsWith(".env.")) return true;
  return PRIVATE_KEY_NAMES.has(name) || name.endsWith(".pem");
}

/** `resolveToolPath` for rendering: null instead of an error, since rendering must never fail a call. */
export function tryResolveToolPath(path: string, scope: { cwd: string; additionalDirectories?: readonly string[] }): string | null {
  try {
    return resolveToolPath(path, { cwd: scope.cwd, additionalDirectories: scope.additionalDirectories ?? [] });
  } catch {
    return null;
  }
}
