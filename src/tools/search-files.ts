/**
 * `search_files`: a regex search over the workspace, run on the user's machine
 * in an editor terminal: ripgrep when installed (fast, honours .gitignore),
 * `grep -rn` otherwise. Read-only, so it does not pass the permission gate.
 */
import * as z from "zod";
import { canUseTerminal } from "./client-calls.js";
import { displayPath, resolveToolPath, tryResolveToolPath } from "./path-policy.js";
import { boundedForModel, formatCount, previewBlock } from "./render.js";
import { runInTerminal } from "./run-terminal.js";
import { shellJoin } from "./shell-quote.js";
import { ToolError, type Tool } from "./tool.js";

const DEFAULT_MAX_RESULTS = 200;
const SEARCH_TIMEOUT_MS = 60_000;
/** Lines longer than this are minified code or data; the model gains nothing from the rest. */
const MAX_LINE_CHARS = 400;
/**
 * Bytes of a line the shell keeps (`cut`): grep has no column limit, and one matching
 * line of a minified bundle would otherwise fill the editor's output buffer, which
 * keeps the end and drops the first results. Four bytes per UTF-8 character, so the
 * `MAX_LINE_CHARS` kept here are always whole characters.
 */
export const SEARCH_LINE_BYTES = MAX_LINE_CHARS * 4;

const inputSchema = z.object({
  pattern: z.string().min(1).describe("Regular expression to search for (ripgrep syntax; POSIX extended if grep is the fallback)."),
  path: z.string().min(1).optional().describe("Absolute directory or file to search, inside the workspace. Default: the workspace root."),
  glob: z.string().min(1).optional().describe('Only search files whose name matches this glob, e.g. "*.ts".'),
  ignore_case: z.boolean().optional().describe("Match case-insensitively."),
  fixed_strings: z.boolean().optional().describe("Treat pattern as literal text, not a regex."),
  max_results: z.number().int().min(1).max(1000).optional().describe(`Maximum matching lines to return. Default: ${DEFAULT_MAX_RESULTS}.`),
});

export type SearchFilesInput = z.infer<typeof inputSchema>;

export interface SearchCommand {
  /** Where to search, as it appears in the output: relative to cwd when inside it. */
  target: string;
  ignoreCase: boolean;
  fixedStrings: boolean;
  glob?: string;
  /** Lines to keep; one extra is requested to learn whether there were more. */
  maxLines: number;
}

/**
 * One POSIX shell command: ripgrep if present, else grep, stderr merged so the
 * model sees a bad regex, and `cut` and `head` bounding the output at the start
 * (the editor's own byte limit would drop the *first* results instead).
 */
export function buildSearchCommand(pattern: string, options: SearchCommand): string {
  const rg = ["rg", "--line-number", "--no-heading", "--color", "never", "--max-columns", String(MAX_LINE_CHARS)];
  const grep = ["grep", "-rnI", "--color=never", "--exclude-dir=.git", "--exclude-dir=node_modules"];
  if (options.ignoreCase) {
    rg.push("--ignore-case");
    grep.push("-i");
  }
  if (options.fixedStrings) {
    rg.push("--fixed-strings");
    grep.push("-F");
  } else grep.push("-E");
  if (options.glob !== undefined) {
    rg.push("--glob", options.glob);
    grep.push(`--include=${options.glob}`);
  }
  rg.push("-e", pattern, "--");
  grep.push("-e", pattern, "--", options.target);
  // Without a path argument ripgrep prints paths relative to the cwd without a "./" prefix.
  if (options.target !== ".") rg.push(options.target);
  return `{ if command -v rg >/dev/null 2>&1; then ${shellJoin(rg)}; else ${shellJoin(grep)}; fi; } 2>&1 | cut -c 1-${SEARCH_LINE_BYTES} | head -n ${options.maxLines + 1}`;
}

export const searchFilesTool: Tool<SearchFilesInput> = {
  name: "search_files",
  description:
    "Search file contents in the user's workspace with a regular expression (ripgrep, or grep if ripgrep is missing). " +
    "Returns matching lines as `path:line:text`. Narrow with `path` (absolute, inside the workspace) and `glob`.",
  kind: "search",
  inputSchema,
  title: (input) => `Search "${input.pattern}"${input.path ? ` in ${input.path}` : ""}${input.glob ? ` (${input.glob})` : ""}`,
  locations(input, ctx: { cwd: string; additionalDirectories?: readonly string[] }) {
    const path = tryResolveToolPath(input.path ?? ctx.cwd, ctx);
    return path ? [{ path }] : [];
  },
  available: canUseTerminal,
  async run(input, ctx) {
    const cwd = resolveToolPath(ctx.cwd, ctx);
    const root = resolveToolPath(input.path ?? cwd, ctx);
    if (!cwd.startsWith("/")) {
      throw new ToolError("search_files composes a POSIX shell command and this workspace is on Windows; use the terminal tool with rg or findstr.");
    }
    const maxLines = input.max_results ?? DEFAULT_MAX_RESULTS;
    const command = buildSearchCommand(input.pattern, {
      target: displayPath(root, cwd),
      ignoreCase: input.ignore_case ?? false,
      fixedStrings: input.fixed_strings ?? false,
      maxLines,
      ...(input.glob !== undefined ? { glob: input.glob } : {}),
    });
    // Room for every line `cut` and `head` let through, so the editor never drops the first ones.
    const outputByteLimit = (maxLines + 1) * (SEARCH_LINE_BYTES + 1);
    const run = await runInTerminal(ctx, { command, cwd, outputByteLimit, timeoutMs: SEARCH_TIMEOUT_MS });
    const lines = run.output.split("\n").filter((l) => l !== "");
    const more = lines.length > maxLines;
    const shown = lines.slice(0, maxLines).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l));
    const notes = [
      more ? `[Showing the first ${formatCount(maxLines)} lines; narrow the search with path or glob to see the rest.]` : "",
      run.timedOut ? `[The search was stopped after ${SEARCH_TIMEOUT_MS / 1000} s; results are partial.]` : "",
    ].filter(Boolean);
    const text =
      shown.length === 0
        ? `No matches for ${JSON.stringify(input.pattern)} in ${root}.${run.timedOut ? " " + notes.join(" ") : ""}`
        : [...shown, ...notes].join("\n");
    return {
      output: boundedForModel(text, "Narrow the search.").text,
      content: [previewBlock(text)],
      locations: [{ path: root }],
      rawOutput: { root, lines: shown.length, more, timedOut: run.timedOut },
    };
  },
};
