/**
 * Pure text edits for the `patch` tool: exact-string replacement and unified
 * diffs. Both work on the content the editor returned, so the diff shown to
 * the user is the real before/after. Failures throw `PatchError` with a
 * message written for the model: what did not match and how to fix the call.
 */

export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchError";
  }
}

export interface ReplaceResult {
  text: string;
  replacements: number;
}

/**
 * Replaces `oldString` with `newString`: exactly one occurrence, or all of
 * them with `replaceAll`. A file with CRLF line endings also matches an
 * `oldString` written with `\n`, because models write `\n`.
 */
export function applyReplacement(text: string, oldString: string, newString: string, replaceAll = false): ReplaceResult {
  if (oldString === "") {
    throw new PatchError("old_string is empty. Include the exact text to replace (use write_file to create or overwrite a whole file).");
  }
  if (oldString === newString) throw new PatchError("old_string and new_string are identical, so nothing would change.");
  let find = oldString;
  let replacement = newString;
  let count = countOccurrences(text, find);
  if (count === 0 && text.includes("\r\n") && !oldString.includes("\r")) {
    find = oldString.replace(/\n/g, "\r\n");
    replacement = newString.replace(/\r?\n/g, "\r\n");
    count = countOccurrences(text, find);
  }
  if (count === 0) throw new PatchError(notFoundMessage(text, oldString));
  if (count > 1 && !replaceAll) {
    throw new PatchError(
      `old_string occurs ${count} times. Include more surrounding lines so it matches exactly one place, or set replace_all to replace every occurrence.`,
    );
  }
  const out = replaceAll ? text.split(find).join(replacement) : text.replace(find, () => replacement);
  return { text: out, replacements: replaceAll ? count : 1 };
}

function countOccurrences(text: string, find: string): number {
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + find.length)) count++;
  return count;
}

function notFoundMessage(text: string, oldString: string): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const hint = squash(text).includes(squash(oldString))
    ? " The text exists with different whitespace or indentation; copy it exactly from a fresh read_file."
    : " Read the file again and copy the text exactly, including whitespace.";
  return `old_string was not found in the file.${hint}`;
}

export interface HunkLine {
  op: " " | "-" | "+";
  text: string;
  /** Set when a `\ No newline at end of file` marker follows this line. */
  noNewline?: boolean;
}

export interface Hunk {
  /** The `@@` line as written, for error messages. */
  header: string;
  /** 1-based; null when the header carries no line numbers (`@@ @@`). */
  oldStart: number | null;
  lines: HunkLine[];
}

export interface ParsedPatch {
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/;

/**
 * Parses a unified diff for one file. Line counts in `@@` headers are not
 * trusted (models miscount them); a hunk runs until the next `@@` or the end.
 */
export function parseUnifiedDiff(patch: string): ParsedPatch {
  const lines = stripFences(patch.split(/\r?\n/));
  while (lines.length && lines.at(-1) === "") lines.pop();
  const parsed: ParsedPatch = { oldPath: null, newPath: null, hunks: [] };
  let hunk: Hunk | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    // Ambiguous by nature: removing a line "-- x" right before adding "++ y" looks the same; real diffs rarely do.
    const startsFile = line.startsWith("diff --git ") || (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "));
    if (startsFile && parsed.hunks.length > 0) {
      throw new PatchError("The patch changes more than one file. Send one patch call per file.");
    }
    if (line.startsWith("@@")) {
      const numbers = HUNK_HEADER.exec(line);
      if (!numbers && !/^@@(?:\s*@@.*)?$/.test(line)) throw new PatchError(`Line ${i + 1} is not a valid hunk header: ${line}`);
      hunk = { header: line, oldStart: numbers ? Number(numbers[1]) : null, lines: [] };
      parsed.hunks.push(hunk);
      continue;
    }
    if (!hunk) {
      if (line.startsWith("--- ")) parsed.oldPath = headerPath(line);
      else if (line.startsWith("+++ ")) parsed.newPath = headerPath(line);
      else if (line.startsWith("*** Begin Patch")) throw new PatchError("This is not a unified diff. Use `@@ -l,n +l,n @@` hunks with ' ', '-' and '+' lines.");
      else if (line.startsWith("Binary files")) throw new PatchError("Binary patches are not supported.");
      continue;
    }
    const op = line[0];
    if (op === " " || op === "-" || op === "+") hunk.lines.push({ op, text: line.slice(1) });
    else if (line === "") hunk.lines.push({ op: " ", text: "" }); // an empty context line whose space an editor trimmed
    else if (op === "\\") {
      const previous = hunk.lines.at(-1);
      if (previous) previous.noNewline = true;
    } else throw new PatchError(`Line ${i + 1} of the patch is not part of a hunk (lines must start with ' ', '-' or '+'): ${line}`);
  }
  if (parsed.oldPath === "/dev/null") throw new PatchError("This patch creates a new file. Use write_file to create files.");
  if (parsed.newPath === "/dev/null") throw new PatchError("This patch deletes the file, which patch does not do.");
  if (parsed.hunks.length === 0) throw new PatchError("The patch has no @@ hunks.");
  return parsed;
}

/** Models often wrap a diff in a Markdown code fence. */
function stripFences(lines: string[]): string[] {
  const out = [...lines];
  if (out[0]?.startsWith("```")) out.shift();
  const lastText = out.findLastIndex((l) => l.trim() !== "");
  if (lastText >= 0 && out[lastText]?.startsWith("```")) out.splice(lastText);
  return out;
}

function headerPath(line: string): string {
  const path = line.slice(4).split("\t")[0]?.trim() ?? "";
  return path.replace(/^[ab]\//, "");
}

export interface DiffResult {
  text: string;
  hunks: number;
}

interface Placement {
  start: number;
  end: number;
  replacement: string[];
}

/**
 * Applies the hunks in order. Each hunk's old side (context and `-` lines) must
 * match the file exactly, or else ignoring trailing whitespace; when it matches
 * in several places the one nearest its line number wins, and without a line
 * number that is an error rather than a guess.
 */
export function applyUnifiedDiff(text: string, patch: string | ParsedPatch): DiffResult {
  const parsed = typeof patch === "string" ? parseUnifiedDiff(patch) : patch;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text === "" ? [] : text.split(/\r?\n/);
  let finalNewline = text === "" || text.endsWith("\n");
  if (text.endsWith("\n")) lines.pop();
  const placements: Placement[] = [];
  let cursor = 0;
  let drift = 0;
  for (const [index, hunk] of parsed.hunks.entries()) {
    const label = `Hunk ${index + 1} (${hunk.header})`;
    const oldSide = hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
    const start = locate(lines, oldSide, hunk, cursor, drift, label);
    placements.push({ start, end: start + oldSide.length, replacement: rebuild(lines, start, hunk) });
    // How far the file has moved from the diff's line numbers, for placing later hunks.
    if (hunk.oldStart !== null && oldSide.length > 0) drift = start - (hunk.oldStart - 1);
    cursor = start + oldSide.length;
    if (cursor === lines.length) finalNewline = newlineAtEnd(hunk, finalNewline);
  }
  const out: string[] = [];
  let at = 0;
  for (const p of placements) {
    out.push(...lines.slice(at, p.start), ...p.replacement);
    at = p.end;
  }
  out.push(...lines.slice(at));
  return { text: out.join(eol) + (finalNewline && out.length ? eol : ""), hunks: placements.length };
}

function locate(lines: string[], oldSide: string[], hunk: Hunk, cursor: number, drift: number, label: string): number {
  if (oldSide.length === 0) {
    // A pure insertion: `-5,0` means "after line 5".
    if (hunk.oldStart === null) {
      if (lines.length === 0) return 0;
      throw new PatchError(`${label} has no context lines and no line numbers, so there is no telling where it goes.`);
    }
    return Math.min(Math.max(hunk.oldStart + drift, cursor), lines.length);
  }
  let candidates = matches(lines, oldSide, cursor, (a, b) => a === b);
  if (candidates.length === 0) candidates = matches(lines, oldSide, cursor, (a, b) => a.trimEnd() === b.trimEnd());
  if (candidates.length === 0) {
    const preview = oldSide.slice(0, 3).map((l) => `  ${l}`).join("\n");
    throw new PatchError(
      `${label} does not apply: its context and removed lines were not found in the file${cursor > 0 ? " after the previous hunk" : ""}. Expected:\n${preview}\nRead the file again and rebuild the hunk from its current text.`,
    );
  }
  if (hunk.oldStart === null) {
    if (candidates.length > 1) {
      const where = candidates.map((c) => c + 1).join(", ");
      throw new PatchError(`${label} matches at lines ${where}. Add line numbers to the @@ header or more context lines.`);
    }
    return candidates[0] ?? 0;
  }
  const expected = hunk.oldStart - 1 + drift;
  return candidates.reduce((best, c) => (Math.abs(c - expected) < Math.abs(best - expected) ? c : best));
}

function matches(lines: string[], block: string[], from: number, same: (a: string, b: string) => boolean): number[] {
  const found: number[] = [];
  for (let start = from; start + block.length <= lines.length; start++) {
    if (block.every((line, k) => same(lines[start + k] ?? "", line))) found.push(start);
  }
  return found;
}

/** The new side, keeping the file's own text for context lines (a fuzzy match must not rewrite them). */
function rebuild(lines: string[], start: number, hunk: Hunk): string[] {
  const out: string[] = [];
  let at = start;
  for (const line of hunk.lines) {
    if (line.op === "+") out.push(line.text);
    else if (line.op === " ") out.push(lines[at++] ?? line.text);
    else at++;
  }
  return out;
}

/** Honours `\ No newline at end of file` for a hunk that reaches the end of the file. */
function newlineAtEnd(hunk: Hunk, current: boolean): boolean {
  const lastNew = hunk.lines.findLast((l) => l.op !== "-");
  const lastOld = hunk.lines.findLast((l) => l.op !== "+");
  if (lastNew?.noNewline) return false;
  if (lastOld?.noNewline) return true;
  return current;
}
