/**
 * A file change as a unified diff with line numbers, computed by `diff`
 * from the tool call's `oldText`/`newText`.
 * @module
 */
import { useMemo } from "preact/hooks";
import { diffRows } from "../state/diff-rows.js";

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
