/**
 * `read_file`: a text file from the user's workspace, read through the editor
 * (`fs/read_text_file`), so unsaved buffer contents are what the model sees.
 */
import * as z from "zod";
import { canReadFiles, readTextFile } from "./client-calls.js";
import { resolveToolPath, tryResolveToolPath } from "./path-policy.js";
import { boundedForModel, formatCount, previewBlock } from "./render.js";
import type { Tool } from "./tool.js";

const inputSchema = z.object({
  path: z.string().min(1).describe("Absolute path of the file, inside the workspace."),
  line: z.number().int().min(1).optional().describe("1-based line to start reading from. Default: the first line."),
  limit: z.number().int().min(1).optional().describe("Maximum number of lines to read. Default: the whole file."),
});

export type ReadFileInput = z.infer<typeof inputSchema>;

export const readFileTool: Tool<ReadFileInput> = {
  name: "read_file",
  description:
    "Read a text file in the user's workspace, as the editor currently has it (unsaved changes included). " +
    "The path must be absolute and inside the workspace. For large files pass `line` (1-based) and `limit` (number of lines). " +
    "Results longer than 100,000 characters are truncated.",
  kind: "read",
  inputSchema,
  title: (input) => `Read ${input.path}${rangeLabel(input)}`,
  locations(input, ctx: { cwd: string; additionalDirectories?: readonly string[] }) {
    const path = tryResolveToolPath(input.path, ctx);
    return path ? [{ path, ...(input.line !== undefined ? { line: input.line } : {}) }] : [];
  },
  available: canReadFiles,
  async run(input, ctx) {
    const path = resolveToolPath(input.path, ctx);
    const content = await readTextFile(ctx, path, {
      ...(input.line !== undefined ? { line: input.line } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
    });
    const forModel = boundedForModel(content, "Read the rest with `line` and `limit`.");
    const empty = input.line !== undefined ? "(no lines in the requested range)" : "(the file is empty)";
    return {
      output: content === "" ? empty : forModel.text,
      content: [previewBlock(content === "" ? empty : content)],
      locations: [{ path, ...(input.line !== undefined ? { line: input.line } : {}) }],
      rawOutput: { path, characters: content.length, truncatedForModel: forModel.truncated },
    };
  },
};

function rangeLabel(input: ReadFileInput): string {
  if (input.line === undefined && input.limit === undefined) return "";
  const from = input.line ?? 1;
  return input.limit !== undefined ? ` (lines ${from}–${from + input.limit - 1})` : ` (from line ${formatCount(from)})`;
}
