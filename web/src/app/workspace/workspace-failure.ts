/**
 * Why the browser workspace could not be read, in words a user can act on.
 * The browser's file system rejects with a DOMException whose text ("An
 * attempt was made to break through the security policy of the user agent.")
 * names neither the file system nor a remedy; its name says which case it is.
 * Pure.
 * @module
 */

const CAUSES: Readonly<Record<string, string>> = {
  NotAllowedError: "this browser does not let the page use its private file system (site data may be blocked for this site)",
  SecurityError: "this browser does not let the page use its private file system (site data may be blocked for this site)",
  QuotaExceededError: "the browser's storage for this site is full",
  NotFoundError: "a file or folder was removed while the list was being read",
  NotReadableError: "a file could not be read: another tab or program may be using it",
  InvalidStateError: "the workspace changed while the list was being read",
  TypeMismatchError: "a file stands where a folder belongs, or a folder where a file belongs",
};

/** The cause of a failure, as a sentence: the browser's own text when it is not one of the known cases. */
export function workspaceFailureCause(err: unknown): string {
  const known = err instanceof DOMException ? CAUSES[err.name] : undefined;
  const text = known ?? (err instanceof Error ? err.message : String(err)).trim().replace(/\.$/, "");
  const cause = text || "the browser gave no reason";
  return `${cause[0]!.toUpperCase()}${cause.slice(1)}.`;
}
