/**
 * Project memory, the pure part: the entries the agent keeps for a tenant's
 * project, the edits the `memory` tool makes to them (Hermes' add / replace /
 * remove) and the 4,000-character bound. Storage is `db/memory-store.ts`.
 */
import { z } from "zod";
import { ToolError } from "./tool.js";

/** The most a project's memory holds, counted over all entries. */
export const MEMORY_CHAR_LIMIT = 4_000;

export const zMemoryAction = z.enum(["add", "replace", "remove"]);

export interface MemoryEdit {
  action: z.infer<typeof zMemoryAction>;
  content?: string | undefined;
  old_text?: string | undefined;
}

/** Characters a memory takes against the bound: the sum of its entries. */
export function memoryCharacters(entries: readonly string[]): number {
  return entries.reduce((n, e) => n + e.length, 0);
}

/** Entries as a replacement body (`PUT /v1/memory`) must be: non-empty after trimming, within the bound. */
export const zMemoryEntries = z
  .array(z.string().trim().min(1, "an entry must not be empty"))
  .max(200)
  .refine((entries) => memoryCharacters(entries) <= MEMORY_CHAR_LIMIT, {
    message: `the entries exceed ${MEMORY_CHAR_LIMIT.toLocaleString("en-US")} characters in total`,
  });

/**
 * The entries after `edit`, or a `ToolError` the model can act on: a missing or
 * ambiguous `old_text` lists the candidates, going over the bound asks it to consolidate.
 */
export function applyMemoryEdit(entries: readonly string[], edit: MemoryEdit): string[] {
  const content = edit.content?.trim();
  if (edit.action !== "remove" && !content) throw new ToolError(`\`content\` is required for ${edit.action}: the text of the entry.`);
  let next: string[];
  if (edit.action === "add") {
    if (entries.includes(content!)) return [...entries];
    next = [...entries, content!];
  } else {
    const index = findEntry(entries, edit.old_text);
    next = edit.action === "replace" ? entries.map((e, i) => (i === index ? content! : e)) : entries.filter((_, i) => i !== index);
  }
  const total = memoryCharacters(next);
  if (total > MEMORY_CHAR_LIMIT) {
    throw new ToolError(
      `That would make the project memory ${total.toLocaleString("en-US")} characters, over its ${MEMORY_CHAR_LIMIT.toLocaleString("en-US")}-character bound. ` +
        "Consolidate first: replace several related entries with one shorter entry, or remove what is no longer true.\n" +
        listing(entries),
    );
  }
  return next;
}

/** Index of the one entry containing `oldText`. */
function findEntry(entries: readonly string[], oldText: string | undefined): number {
  const needle = oldText?.trim();
  if (!needle) throw new ToolError(`\`old_text\` is required: a unique part of the entry to change.\n${listing(entries)}`);
  const matches = entries.flatMap((e, i) => (e.includes(needle) ? [i] : []));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new ToolError(`No memory entry contains "${needle}".\n${listing(entries)}`);
  throw new ToolError(
    `"${needle}" is in ${matches.length} entries; give \`old_text\` that only one of them contains. Candidates:\n` +
      matches.map((i) => `- ${entries[i]}`).join("\n"),
  );
}

function listing(entries: readonly string[]): string {
  return entries.length === 0 ? "The project memory is empty." : `Current entries:\n${entries.map((e) => `- ${e}`).join("\n")}`;
}

/** The memory as a human and the model read it: one bullet per entry. */
export function formatMemory(entries: readonly string[]): string {
  return entries.map((e) => `- ${e}`).join("\n");
}

/** The usage line shown after an edit and by `/memory`. */
export function memoryUsage(entries: readonly string[]): string {
  const n = entries.length;
  return `${n} entr${n === 1 ? "y" : "ies"}, ${memoryCharacters(entries).toLocaleString("en-US")} of ${MEMORY_CHAR_LIMIT.toLocaleString("en-US")} characters`;
}
