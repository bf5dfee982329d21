/**
 * The open session: its title and folder, the mode/model/reasoning pickers
 * from its config options, context usage, the plan, the conversation and the
 * prompt box.
 * @module
 */
import type { SessionConfigOption, SessionConfigSelectOption } from "@agentclientprotocol/sdk";
import type { AppController } from "../state/app-controller.js";
import type { AppState } from "../state/app-state.js";
import type { Transcript } from "../state/transcript.js";
import { useState } from "preact/hooks";
import { sessionTitle } from "../state/session-title.js";
import { PromptBox } from "./prompt-box.js";
import { isReadOnly, mayShare, ReadOnlyMark } from "./session-access.js";
import { ShareDialog } from "./share-dialog.js";
import { TranscriptView } from "./transcript-view.js";

function flatOptions(option: SessionConfigOption & { type: "select" }): SessionConfigSelectOption[] {
  return option.options.flatMap((o) => ("group" in o ? o.options : [o]));
}

function ConfigPickers({ options, onChange }: { options: readonly SessionConfigOption[]; onChange: (id: string, value: string) => void }) {
  return (
    <div class="pickers">
      {options.map((option) =>
        option.type === "select" ? (
          <label key={option.id} class="picker">
            <span>{option.name}</span>
            <select value={option.currentValue} onChange={(e) => onChange(option.id, (e.target as HTMLSelectElement).value)}>
              {flatOptions(option).map((o) => (
                <option key={o.value} value={o.value}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
        ) : null,
      )}
    </div>
  );
}

function Usage({ usage }: { usage: Transcript["usage"] }) {
  if (!usage) return null;
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k` : String(n));
  return (
    <div class="usage" title={`${usage.used.toLocaleString()} of ${usage.size.toLocaleString()} tokens in the context window`}>
      <span>Context</span>
      <meter min={0} max={usage.size} value={usage.used} aria-label="Context used" />
      <span>
        {k(usage.used)} / {k(usage.size)}
      </span>
    </div>
  );
}

function Plan({ plan }: { plan: Transcript["plan"] }) {
  if (plan.length === 0) return null;
  const mark = { pending: "○", in_progress: "◐", completed: "●" } as Record<string, string>;
  return (
    <section class="plan" aria-label="Plan">
      <h3>Plan</h3>
      <ol>
        {plan.map((entry, i) => (
          <li key={i} class={`plan-${entry.status}`}>
            <span aria-hidden="true">{mark[entry.status] ?? "○"}</span> {entry.content}
            <span class="visually-hidden"> ({entry.status.replace("_", " ")})</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function SessionPane({ controller, state, sessionId }: { controller: AppController; state: AppState; sessionId: string }) {
  const transcript = state.transcripts[sessionId];
  const info = state.sessions.items.find((s) => s.sessionId === sessionId);
  const running = state.running[sessionId] === true;
  const [sharing, setSharing] = useState(false);
  const readOnly = isReadOnly(info);
  if (!transcript) return <p class="empty">Loading the session…</p>;
  const title = sessionTitle(transcript.title, info?.title);
  return (
    <section class="session-pane" aria-label="Session">
      <header class="session-head">
        <div class="session-title">
          {/* One line, cut with an ellipsis: a long title never runs under the pickers. */}
          <h2 title={title}>{title}</h2>
          <p class="muted">
            {info?.cwd ?? ""}
            {running ? <span class="pill pill-running">Turn running</span> : null}
            {readOnly ? <ReadOnlyMark /> : null}
          </p>
        </div>
        {mayShare(info) && controller.apiKey ? (
          <button type="button" class="secondary" onClick={() => setSharing(true)}>
            Share
          </button>
        ) : null}
        {readOnly ? null : <ConfigPickers options={transcript.configOptions} onChange={(id, value) => void controller.setConfigOption(sessionId, id, value)} />}
        <Usage usage={transcript.usage} />
      </header>
      <Plan plan={transcript.plan} />
      <TranscriptView transcript={transcript} />
      {readOnly ? null : (
        <PromptBox
          commands={transcript.commands}
          running={running}
          canAttachImages
          onSend={(blocks) => void controller.prompt(sessionId, blocks)}
          onCancel={() => controller.cancel(sessionId)}
        />
      )}
      {sharing && controller.apiKey ? <ShareDialog sessionId={sessionId} apiKey={controller.apiKey} onClose={() => setSharing(false)} /> : null}
    </section>
  );
}
