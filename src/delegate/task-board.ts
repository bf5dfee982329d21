/**
 * The live view of a `delegate_task` call: one line per task (queued, running
 * with its current tool, finished with a short summary), rendered as the
 * call's `tool_call_update` content. Pure.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { shortLine, type SubagentStatus } from "./subagent-result.js";
import type { SubagentEvent } from "./subagent-spec.js";

type TaskState = "pending" | "queued" | "running" | SubagentStatus;

interface Row {
  goal: string;
  state: TaskState;
  subagentId: string | null;
  detail: string;
}

const MARKS: Record<TaskState, string> = {
  pending: "·",
  queued: "…",
  running: "▶",
  completed: "✓",
  failed: "✗",
  interrupted: "■",
  timeout: "⏱",
};

export class TaskBoard {
  readonly #rows: Row[];

  constructor(goals: string[]) {
    this.#rows = goals.map((goal) => ({ goal: shortLine(goal, 80), state: "pending", subagentId: null, detail: "" }));
  }

  apply(index: number, event: SubagentEvent): void {
    const row = this.#rows[index];
    if (!row) return;
    row.subagentId = event.subagentId;
    switch (event.type) {
      case "queued":
        row.state = "queued";
        // A pause holds the turn until someone resumes: say so, and how.
        row.detail = event.paused
          ? "held: new sub-agents are paused until _hermes/subagents/resume"
          : event.tenantLimit !== undefined
            ? `waiting for a tenant slot: maxConcurrentSubagents (${event.tenantLimit}) are running across this tenant's sessions`
            : "waiting for a free slot";
        return;
      case "started":
        row.state = "running";
        row.detail = "started";
        return;
      case "tool":
        row.state = "running";
        row.detail = shortLine(event.title, 80);
        return;
      case "finished": {
        const { status, duration_seconds: seconds, summary } = event.result;
        row.state = status;
        row.detail = `${status} in ${seconds.toFixed(1)} s${summary ? ` — ${shortLine(summary)}` : ""}`;
        return;
      }
    }
  }

  lines(): string[] {
    return this.#rows.map((row, i) => `${MARKS[row.state]} [${i + 1}] ${row.goal}: ${row.detail || row.state}`);
  }

  content(): ToolCallContent[] {
    return [{ type: "content", content: { type: "text", text: this.lines().join("\n") } }];
  }

  /** For clients that understand delegation: each task's sub-agent id and state. */
  meta(): { subagents: { taskIndex: number; subagentId: string | null; state: TaskState }[] } {
    return { subagents: this.#rows.map((row, taskIndex) => ({ taskIndex, subagentId: row.subagentId, state: row.state })) };
  }
}
