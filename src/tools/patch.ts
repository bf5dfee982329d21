/**
 * `patch`: edits part of a file. The current text comes from the editor
 * (`fs/read_text_file`), the edit is applied here, and the whole new text goes
 * back with `fs/write_text_file`. The tool call shows the real before/after,
 * never the patch text as if it were the file.
 */
import * as z from "zod";
import { canReadFiles, canWriteFiles, readTextFile, writeTextFile } from "./client-calls.js";
import { resolveToolPath, tryResolveToolPath } from "./path-policy.js";
import { diffBlock, firstChangedLine } from "./render.js";
import { applyReplacement, applyUnifiedDiff, PatchError } from "./text-patch.js";
import { ToolError, type Tool } from "./tool.js";

const inputSchema = z
  .object({
    path: z.string().min(1).describe("Absolute path of the file to edit, inside the workspace."),
    old_string: z.string().optional().describe("Exact text to replace (whitespace included). Must match exactly once unless replace_all is set."),
    new_string: z.string().optional().describe("Replacement for old_string (may be empty to delete it)."),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string instead of exactly one."),
    patch: z
      .string()
      .optional()
      .describe("Instead of old_string/new_string: a unified diff for this one file, with `@@ -l,n +l,n @@` hunks of ' ', '-' and '+' lines."),
  })
  .superRefine((input, issues) => {
    const hasReplace = input.old_string !== undefined || input.new_string !== undefined;
    if (input.patch !== undefined && hasReplace) {
      issues.addIssue({ code: "custom", message: "give either old_string/new_string or patch, not both" });
    } else if (input.patch === undefined && !hasReplace) {
      issues.addIssue({ code: "custom", message: "give old_string and new_string, or patch" });
    } else if (hasReplace && (input.old_string === undefined || input.new_string === undefined)) {
      issues.addIssue({ code: "custom", message: "old_string and new_string go together" });
    }
  });

export type PatchInput = z.infer<typeof inputSchema>;

export const patchTool: Tool<PatchInput> = {
  name: "patch",
  description:
    "Edit part of an existing file in the user's workspace. Either replace exact text (`old_string` → `new_string`; it must match " +
    "exactly once, or set `replace_all`), or apply a unified diff for this one file (`patch`). Fails without writing anything when " +
    "the old text is missing or ambiguous, or a hunk does not apply. Use write_file to create files.",
  kind: "edit",
  inputSchema,
  title: (input) => `Edit ${input.path}`,
  locations(input, ctx: { cwd: string; additionalDirectories?: readonly string[] }) {
    const path = tryResolveToolPath(input.path, ctx);
    return path ? [{ path }] : [];
  },
  // Patching starts from the editor's copy of the file, so it needs both directions.
  available: (caps) => canReadFiles(caps) && canWriteFiles(caps),
  async run(input, ctx) {
    const path = resolveToolPath(input.path, ctx);
    const before = await readTextFile(ctx, path);
    const { after, summary } = applyEdit(before, input, path);
    const diff = diffBlock(path, before, after);
    await ctx.gate?.({ kind: "edit", paths: [path], title: `Edit ${path}`, content: [diff] });
    await writeTextFile(ctx, path, after);
    const line = firstChangedLine(before, after);
    return {
      output: `Patched ${path}: ${summary}. First change at line ${line}.`,
      content: [diff],
      locations: [{ path, line }],
      rawOutput: { path, summary },
    };
  },
};

function applyEdit(before: string, input: PatchInput, path: string): { after: string; summary: string } {
  try {
    if (input.patch !== undefined) {
      const result = applyUnifiedDiff(before, input.patch);
      if (result.text === before) throw new PatchError("The patch applies but changes nothing.");
      return { after: result.text, summary: `applied ${result.hunks} hunk${result.hunks === 1 ? "" : "s"}` };
    }
    const result = applyReplacement(before, input.old_string ?? "", input.new_string ?? "", input.replace_all ?? false);
    return { after: result.text, summary: `replaced ${result.replacements} occurrence${result.replacements === 1 ? "" : "s"}` };
  } catch (err) {
    if (err instanceof PatchError) throw new ToolError(`Could not patch ${path}: ${err.message}`, { cause: err });
    throw err;
  }
}
