/**
 * The page: the sign-in form, or the workbench (sessions, the open session,
 * the browser workspace) with the connection's status and any permission
 * request on top.
 * @module
 */
import type { AppController } from "../state/app-controller.js";
import { useAppState } from "../use-app-state.js";
import { ElicitationDialog } from "./elicitation-dialog.js";
import { PermissionDialog } from "./permission-dialog.js";
import { SessionList } from "./session-list.js";
import { SessionPane } from "./session-pane.js";
import { SignIn } from "./sign-in.js";
import { WorkspacePanel } from "./workspace-panel.js";

export function App({ controller }: { controller: AppController }) {
  const state = useAppState(controller);
  if (state.phase !== "ready") return <SignIn controller={controller} state={state} />;
  const status = state.status;
  const folder = controller.workspaceFolder(state.activeSessionId);
  // One dialog at a time, the oldest first: an answer being typed is never swept away by a later request.
  const [firstPermission, firstQuestion] = [state.permissions[0], state.elicitations[0]];
  const ask = firstPermission && (!firstQuestion || firstPermission.id < firstQuestion.id) ? firstPermission : undefined;
  const askTitle = ask ? (state.transcripts[ask.params.sessionId]?.title ?? null) : null;
  const question = ask ? undefined : firstQuestion;
  const questionSession = (question?.params as { sessionId?: string } | undefined)?.sessionId;
  const questionTitle = questionSession ? (state.transcripts[questionSession]?.title ?? null) : null;
  return (
    <div class="shell">
      <header class="topbar">
        <div class="brand">
          <img src="/favicon.svg" alt="" width={22} height={22} />
          <span>hermes-edge</span>
        </div>
        {status?.state === "reconnecting" ? (
          <p class="status status-reconnecting" role="status">
            Reconnecting… <span class="muted">(attempt {status.attempt})</span>
          </p>
        ) : (
          <p class="status status-open" role="status">
            Connected
          </p>
        )}
        <button type="button" class="link" onClick={() => controller.signOut()}>
          Sign out
        </button>
      </header>
      {state.error ? (
        <div class="banner error" role="alert">
          <span>{state.error}</span>
          <button type="button" class="icon" aria-label="Dismiss" onClick={() => controller.dismissError()}>
            ×
          </button>
        </div>
      ) : null}
      <div class="workbench">
        <SessionList controller={controller} state={state} />
        <main class="main">
          {state.startingIn !== null ? (
            <div class="welcome" role="status">
              <h2>Starting a session</h2>
              <p class="muted">in {state.startingIn}…</p>
            </div>
          ) : state.activeSessionId ? (
            <SessionPane controller={controller} state={state} sessionId={state.activeSessionId} />
          ) : (
            <div class="welcome">
              <h2>Start a session</h2>
              <p class="muted">Pick a session on the left, or start one in a working directory. Sessions live on the service: open them from any browser or editor.</p>
            </div>
          )}
        </main>
        {/* Keyed by folder: a file open in one session's folder is not shown as another's. */}
        <WorkspacePanel key={folder} workspace={controller.workspace} folder={folder} />
      </div>
      {ask ? <PermissionDialog key={ask.id} ask={ask} sessionTitle={askTitle} status={status} /> : null}
      {question ? <ElicitationDialog key={question.id} ask={question} sessionTitle={questionTitle} status={status} /> : null}
    </div>
  );
}
