/**
 * One tool call: kind, status and title, then what it carries (text, a diff,
 * a terminal) and, for `delegate_task`, one line per sub-agent task that
 * opens onto the tool calls that sub-agent made.
 * @module
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { childCalls, type ToolCallView, type Transcript } from "../state/transcript.js";
import { withoutRpcCode } from "../state/error-words.js";
import { DiffView } from "./diff-view.js";

const KIND_LABEL: Record<string, string> = {
  read: "Read",
  edit: "Edit",
  delete: "Delete",
  move: "Move",
  search: "Search",
  execute: "Run",
  think: "Think",
  fetch: "Fetch",
  switch_mode: "Mode",
  other: "Tool",
};

const STATUS_LABEL: Record<string, string> = { pending: "pending", in_progress: "running", completed: "done", failed: "failed" };

/** `failed`: the text is the failure's reason, shown without its JSON-RPC code (see {@link withoutRpcCode}). */
export function ToolContent({ item, failed = false }: { item: ToolCallContent; failed?: boolean }) {
  if (item.type === "diff") return <DiffView path={item.path} oldText={item.oldText} newText={item.newText} />;
  if (item.type === "terminal") {
    return <p class="tool-terminal">Terminal {item.terminalId}: its output is shown by the editor that ran it.</p>;
  }
  if (item.content.type === "text") return <pre class="tool-text">{failed ? withoutRpcCode(item.content.text) : item.content.text}</pre>;
  return <p class="tool-text">[{item.content.type}]</p>;
}

function exitLine(call: ToolCallView): string | null {
  const raw = call.rawOutput as { exitCode?: unknown } | undefined;
  return call.content.some((c) => c.type === "terminal") && typeof raw?.exitCode === "number" ? `Exit code ${raw.exitCode}` : null;
}

function SubagentTree({ call, transcript }: { call: ToolCallView; transcript: Transcript }) {
  const text = call.content.find((c) => c.type === "content" && c.content.type === "text");
  const lines = text && text.type === "content" && text.content.type === "text" ? text.content.text.split("\n") : [];
  return (
    <ul class="subagents" aria-label="Sub-agents">
      {(call.subagents ?? []).map((task) => {
        const children = childCalls(transcript, call.toolCallId, task.subagentId);
        return (
          <li key={task.taskIndex} class={`subagent subagent-${task.state}`}>
            <details>
              <summary>
                {/* The service's line starts with a status mark; the pill says it in words. */}
                <span class="pill">{task.state}</span> {lines[task.taskIndex]?.replace(/^\S+\s+/, "") ?? `Task ${task.taskIndex + 1}`}
                {children.length > 0 ? <span class="muted"> · {children.length} tool call{children.length === 1 ? "" : "s"}</span> : null}
              </summary>
              {children.length === 0 ? <p class="muted">No tool calls yet.</p> : children.map((c) => <ToolCallCard key={c.toolCallId} call={c} transcript={transcript} compact />)}
            </details>
          </li>
        );
      })}
    </ul>
  );
}

export function ToolCallCard({ call, transcript, compact = false }: { call: ToolCallView; transcript: Transcript; compact?: boolean }) {
  const exit = exitLine(call);
  const delegate = call.subagents !== undefined && call.subagents.length > 0;
  return (
    <article class={`tool tool-${call.status}${compact ? " tool-compact" : ""}`} aria-label={`${KIND_LABEL[call.kind] ?? "Tool"}: ${call.title}`}>
      <header>
        <span class={`kind kind-${call.kind}`}>{KIND_LABEL[call.kind] ?? call.kind}</span>
        <span class="tool-title">{call.title}</span>
        <span class={`pill status-${call.status}`}>{STATUS_LABEL[call.status] ?? call.status}</span>
      </header>
      {delegate ? (
        <SubagentTree call={call} transcript={transcript} />
      ) : (
        call.content.map((item, i) => <ToolContent key={i} item={item} failed={call.status === "failed"} />)
      )}
      {exit ? <p class="tool-exit">{exit}</p> : null}
    </article>
  );
}
