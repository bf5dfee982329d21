/**
 * The sidebar: start a session in a working directory, and the "Sessions"
 * list (newest first, paged, filterable by folder).
 * @module
 */
import { useState } from "preact/hooks";
import type { AppController } from "../state/app-controller.js";
import type { AppState } from "../state/app-state.js";
import { sessionTitle } from "../state/session-title.js";
import { WORKSPACE_ROOT } from "../workspace/opfs-workspace.js";
import { SharedMark } from "./session-access.js";

function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toDateString() === new Date().toDateString()
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { month: "short", day: "numeric" });
}

export function SessionList({ controller, state }: { controller: AppController; state: AppState }) {
  const [cwd, setCwd] = useState(WORKSPACE_ROOT);
  const [filter, setFilter] = useState("");
  const { sessions } = state;
  return (
    <nav class="sidebar" aria-label="Sessions sidebar">
      <form
        class="new-session"
        onSubmit={(e) => {
          e.preventDefault();
          void controller.newSession(cwd);
        }}
      >
        <label for="cwd">Working directory</label>
        <div class="row">
          <input id="cwd" value={cwd} spellcheck={false} onInput={(e) => setCwd((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" disabled={state.startingIn !== null}>
          New session
        </button>
      </form>
      <div class="sessions-head">
        <h2 id="sessions-heading">Sessions</h2>
        <button type="button" class="link" onClick={() => void controller.refreshSessions()} aria-label="Refresh sessions">
          Refresh
        </button>
      </div>
      <form
        class="filter"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void controller.refreshSessions(filter);
        }}
      >
        <label for="session-filter" class="visually-hidden">
          Filter by folder
        </label>
        <input
          id="session-filter"
          type="search"
          placeholder="Filter by folder, e.g. /workspace"
          value={filter}
          spellcheck={false}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
        />
      </form>
      {sessions.error ? <p class="error" role="alert">{sessions.error}</p> : null}
      <ul class="session-list" aria-label="Sessions" aria-busy={sessions.loading}>
        {sessions.items.map((s) => (
          <li key={s.sessionId}>
            <button
              type="button"
              class="session-item"
              aria-current={s.sessionId === state.activeSessionId ? "true" : undefined}
              onClick={() => void controller.openSession(s.sessionId)}
            >
              <span class="session-name">{sessionTitle(state.transcripts[s.sessionId]?.title, s.title)}</span>
              <span class="session-meta">
                {s.cwd} · {when(s.updatedAt)}
                {state.running[s.sessionId] ? " · running" : ""}
              </span>
              <SharedMark info={s} />
            </button>
          </li>
        ))}
      </ul>
      {!sessions.loading && sessions.items.length === 0 && !sessions.error ? <p class="muted empty-small">No sessions{sessions.filter ? ` in ${sessions.filter}` : ""} yet.</p> : null}
      {sessions.nextCursor ? (
        <button type="button" class="secondary" onClick={() => void controller.loadMoreSessions()} disabled={sessions.loading}>
          Load more sessions
        </button>
      ) : null}
    </nav>
  );
}
