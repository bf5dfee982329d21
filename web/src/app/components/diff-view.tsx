/**
 * A file change as a unified diff with line numbers, computed by `diff`
 * from the tool call's `oldText`/`newText`.
 * @module
 */
import { structuredPatch } from "diff";
import { useMemo } from "preact/hooks";

interface Row {
  readonly kind: "add" | "del" | "ctx" | "hunk";
  readonly oldLine?: number;
  readonly newLine?: number;
  readonly text: string;
}

export function diffRows(path: string, oldText: string | null | undefined, newText: string): Row[] {
  const patch = structuredPatch(path, path, oldText ?? "", newText, "", "", { context: 3 });
  const rows: Row[] = [];
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

const MARK = { add: "+", del: "−", ctx: " ", hunk: "" } as const;

export function DiffView({ path, oldText, newText }: { path: string; oldText?: string | null; newText: string }) {
  const rows = useMemo(() => diffRows(path, oldText, newText), [path, oldText, newText]);
  const added = rows.filter((r) => r.kind === "add").length;
  const removed = rows.filter((r) => r.kind === "del").length;
  return (
    <figure class="diff">
      <figcaption>
        <span class="diff-path">{path}</span>
        {oldText === null || oldText === undefined ? <span class="diff-tag">new file</span> : null}
        <span class="diff-stat">
          <span class="diff-added">+{added}</span> <span class="diff-removed">−{removed}</span>
        </span>
      </figcaption>
      <table aria-label={`Changes to ${path}`}>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={`diff-${row.kind}`}>
              {row.kind === "hunk" ? (
                <td colSpan={4} class="diff-hunk-text">{row.text}</td>
              ) : (
                <>
                  <td class="ln">{row.oldLine ?? ""}</td>
                  <td class="ln">{row.newLine ?? ""}</td>
                  <td class="mark" aria-hidden="true">{MARK[row.kind]}</td>
                  <td class="code">{row.text || " "}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
