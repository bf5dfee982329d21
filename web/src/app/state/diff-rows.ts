/**
 * A file change as rows of a unified diff with old and new line numbers,
 * computed by `diff` from a tool call's `oldText`/`newText`. Pure.
 * @module
 */
import { structuredPatch } from "diff";

export interface DiffRow {
  readonly kind: "add" | "del" | "ctx" | "hunk";
  readonly oldLine?: number;
  readonly newLine?: number;
  readonly text: string;
}

export function diffRows(path: string, oldText: string | null | undefined, newText: string): DiffRow[] {
  const patch = structuredPatch(path, path, oldText ?? "", newText, "", "", { context: 3 });
  const rows: DiffRow[] = [];
  for (const hunk of patch.hunks) {
    rows.push({ kind: "hunk", text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "\\") continue; // "\ No newline at end of file"
      if (mark === "+") rows.push({ kind: "add", newLine: newLine++, text });
      else if (mark === "-") rows.push({ kind: "del", oldLine: oldLine++, text });
      else rows.push({ kind: "ctx", oldLine: oldLine++, newLine: newLine++, text });
    }
  }
  return rows;
}

