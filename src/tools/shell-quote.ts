/**
 * POSIX `sh` quoting for commands the service composes itself (search_files).
 * Whatever the model supplies (a regex, a glob, a path) becomes exactly one
 * word: single quotes make every byte literal, and a single quote inside is
 * written as `'\''` (close, escaped quote, reopen).
 */

/** Words made only of these characters mean the same quoted or not, so they stay readable. */
const SAFE_WORD = /^[A-Za-z0-9_\-.,:/@%+]+$/;

/**
 * @throws Error for a NUL byte: no shell word can carry one, and silently
 *   dropping it would run a different command than the one asked for.
 */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new Error("a shell word cannot contain a NUL byte");
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quotes each word and joins them with spaces into one command line. */
export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
