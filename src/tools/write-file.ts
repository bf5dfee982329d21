/**
 * `write_file`: creates or overwrites a file through the editor
 * (`fs/write_text_file`). The old content is read first, when the editor can
 * read, so the permission prompt and the tool call show the real diff.
 */
import * as z from "zod";
import { canWriteFiles, readPriorContent, writeTextFile } from "./client-calls.js";
import { resolveToolPath, tryResolveToolPath } from "./path-policy.js";
import { diffBlock, firstChangedLine, formatCount } from "./render.js";
import type { Tool } from "./tool.js";

const inputSchema = z.object({
  path: z.string().min(1).describe("Absolute path of the file, inside the workspace."),
  content: z.string().describe("The complete new content of the file."),
});

export type WriteFileInput = z.infer<typeof inputSchema>;

export const writeFileTool: Tool<WriteFileInput> = {
  name: "write_file",
  description:
    "Create a file, or replace a file's entire content, in the user's workspace. The path must be absolute and inside the workspace. " +
    "To change part of an existing file, prefer `patch`.",
  kind: "edit",
  inputSchema,
  title: (input) => `Write ${input.path}`,
  locations(input, ctx: { cwd: string; additionalDirectories?: readonly string[] }) {
    const path = tryResolveToolPath(input.path, ctx);
    return path ? [{ path }] : [];
  },
  available: canWriteFiles,
  async run(input, ctx) {
    const path = resolveToolPath(input.path, ctx);
    const prior = await readPriorContent(ctx, path);
    const oldText = prior.state === "present" ? prior.content : null;
    if (oldText === input.content) {
      return { output: `No change: ${path} already has exactly this content.`, locations: [{ path }] };
    }
    const diff = diffBlock(path, oldText, input.content);
    const note =
      prior.state === "absent" ? " (new file)" : prior.state === "unknown" ? ` (its current content could not be read: ${prior.reason})` : "";
    await ctx.gate?.({ kind: "edit", paths: [path], title: `Write ${path}${note}`, content: [diff] });
    await writeTextFile(ctx, path, input.content);
    const lines = input.content === "" ? 0 : input.content.split("\n").length - (input.content.endsWith("\n") ? 1 : 0);
    const verb = oldText === null ? (prior.state === "absent" ? "Created" : "Wrote") : "Overwrote";
    return {
      output: `${verb} ${path} (${formatCount(lines)} line${lines === 1 ? "" : "s"}, ${formatCount(input.content.length)} characters).`,
      content: [diff],
      locations: [{ path, line: firstChangedLine(oldText ?? "", input.content) }],
      rawOutput: { path, created: prior.state === "absent", characters: input.content.length },
    };
  },
};
