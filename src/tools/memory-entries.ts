/**
 * Project memory, the pure part: the entries the agent keeps for a tenant's
 * project, the edits the `memory` tool makes to them (Hermes' add / replace /
 * remove) and the 4,000-character bound. Storage is `db/memory-store.ts`.
 */
import * as z from "zod";
import { ToolError } from "./tool.js";

/** The most a project's memory holds, counted over all entries. */
export const MEMORY_CHAR_LIMIT = 4_000;
/** The most entries it holds: what a `PUT /v1/memory` body may carry, so a memory read back can be written back. */
export const MEMORY_ENTRY_LIMIT = 200;

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

/** Entries as a replacement body (`PUT /v1/memory`) must be: non-empty after trimming, different, within the bounds. */
export const zMemoryEntries = z
  .array(z.string().trim().min(1, "an entry must not be empty"))
  .max(MEMORY_ENTRY_LIMIT)
  .refine((entries) => new Set(entries).size === entries.length, { message: "entries must differ" })
  .refine((entries) => memoryCharacters(entries) <= MEMORY_CHAR_LIMIT, {
    message: `the entries exceed ${MEMORY_CHAR_LIMIT.toLocaleString("en-US")} characters in total`,
  });

/**
 * The entries after `edit`, never one twice, or a `ToolError` the model can act on: a missing or
 * ambiguous `old_text` lists the candidates, going over a bound asks it to consolidate.
 */
export function applyMemoryEdit(entries: readonly string[], edit: MemoryEdit): string[] {
  const content = edit.content?.trim();
  if (edit.action !== "remove" && !content) throw new ToolError(`\`content\` is required for ${edit.action}: the text of the entry.`);
  let next: string[];
  if (edit.action === "add") {
    if (entries.includes(content!)) return [...entries];
    next = [...entries, content!];
  } else {
    // Every copy of the entry: a memory stored before entries had to differ may hold one twice.
    const target = findEntry(entries, edit.old_text);
    next = edit.action === "replace" ? entries.map((e) => (e === target ? content! : e)) : entries.filter((e) => e !== target);
  }
  next = [...new Set(next)];
  const total = memoryCharacters(next);
  const over =
    total > MEMORY_CHAR_LIMIT
      ? `${total.toLocaleString("en-US")} characters, over its ${MEMORY_CHAR_LIMIT.toLocaleString("en-US")}-character bound`
      : next.length > MEMORY_ENTRY_LIMIT
        ? `${next.length} entries, over its ${MEMORY_ENTRY_LIMIT}-entry bound`
        : null;
  if (over) {
    throw new ToolError(
      `That would make the project memory ${over}. ` +
        "Consolidate first: replace several related entries with one shorter entry, or remove what is no longer true.\n" +
        listing(entries),
    );
  }
  return next;
}

/** The one entry containing `oldText`. */
function findEntry(entries: readonly string[], oldText: string | undefined): string {
  const needle = oldText?.trim();
  if (!needle) throw new ToolError(`\`old_text\` is required: a unique part of the entry to change.\n${listing(entries)}`);
  const matches = [...new Set(entries.filter((e) => e.includes(needle)))];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new ToolError(`No memory entry contains "${needle}".\n${listing(entries)}`);
  throw new ToolError(
    `"${needle}" is in ${matches.length} entries; give \`old_text\` that only one of them contains. Candidates:\n` +
      matches.map((e) => `- ${e}`).join("\n"),
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
