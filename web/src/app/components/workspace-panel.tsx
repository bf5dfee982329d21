/**
 * The browser workspace beside the session: the files of the folder the open
 * session works in (kept in this browser's private file system), which the
 * agent can read and write; upload and create them here.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { OpfsWorkspace } from "../workspace/opfs-workspace.js";
import { joinFolder, relativeTo } from "../workspace/workspace-paths.js";
import { formatSize } from "../../client/hermes-protocol.js";
import { useWorkspaceFiles } from "./use-workspace-files.js";

/** `folder`: the open session's working directory (the one a new session would get, when none is open). */
export function WorkspacePanel({ workspace, folder }: { workspace: OpfsWorkspace; folder: string }) {
  const [name, setName] = useState("");
  const [open, setOpen] = useState<{ path: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = useRef<HTMLInputElement>(null);
  const available = OpfsWorkspace.available();
  const { files, failure, retry } = useWorkspaceFiles(workspace, folder, available);

  // The view follows its file: the agent may rewrite it, the user delete it.
  const openPath = open?.path;
  useEffect(() => {
    if (!openPath) return;
    const follow = (next: { path: string; text: string } | null) => setOpen((current) => (current?.path === openPath ? next : current));
    return workspace.onChange(
      () => void workspace.readTextFile({ sessionId: "", path: openPath }, [folder]).then(({ content }) => follow({ path: openPath, text: content }), () => follow(null)),
    );
  }, [workspace, folder, openPath]);

  if (!available) {
    return (
      <aside class="workspace" aria-labelledby="workspace-heading">
        <h2 id="workspace-heading">Workspace</h2>
        <p class="muted">This browser offers no private file system here (it needs https or localhost), so the agent cannot use files.</p>
      </aside>
    );
  }

  const guard = (work: () => Promise<void>) => () => void work().then(() => setError(null), (err: unknown) => setError(err instanceof Error ? err.message : String(err)));

  return (
    <aside class="workspace" aria-labelledby="workspace-heading">
      <h2 id="workspace-heading">Workspace</h2>
      <p class="muted">
        <code>{folder}</code>: files kept in this browser. The agent reads and writes them (asking first).
      </p>
      <ul class="files" aria-label="Workspace files">
        {files.map((f) => (
          <li key={f.path} class={open?.path === f.path ? "is-open" : ""}>
            <button type="button" class="file" onClick={guard(async () => setOpen({ path: f.path, text: (await workspace.readTextFile({ sessionId: "", path: f.path }, [folder])).content }))}>
              {relativeTo(folder, f.path)}
            </button>
            <span class="muted">{formatSize(f.bytes)}</span>
            <button type="button" class="icon" aria-label={`Delete ${f.path}`} onClick={guard(() => workspace.remove(f.path, [folder]))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      {failure ? (
        <div class="workspace-failure" role="alert">
          <p class="error">Could not list the workspace files. {failure}</p>
          <button type="button" class="secondary" onClick={retry}>
            Try again
          </button>
        </div>
      ) : files.length === 0 ? (
        <p class="muted empty-small">No files yet.</p>
      ) : null}
      <form
        class="new-file"
        onSubmit={(e) => {
          e.preventDefault();
          const path = joinFolder(folder, name.trim());
          guard(async () => {
            await workspace.create(path, [folder]);
            setName("");
          })();
        }}
      >
        <label for="new-file">New file</label>
        <div class="row">
          <input id="new-file" placeholder="notes.md" value={name} spellcheck={false} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <button type="submit" class="secondary" disabled={!name.trim()}>
            Create file
          </button>
        </div>
      </form>
      <button type="button" class="secondary" onClick={() => upload.current?.click()}>
        Upload files
      </button>
      <input
        ref={upload}
        type="file"
        multiple
        hidden
        onChange={(e) => {
          const input = e.target as HTMLInputElement;
          const picked = [...(input.files ?? [])];
          input.value = "";
          guard(async () => {
            for (const file of picked) await workspace.write(joinFolder(folder, file.name), file, [folder]);
          })();
        }}
      />
      {error ? <p class="error" role="alert">{error}</p> : null}
      {open ? (
        <section class="file-view" aria-label={`Contents of ${open.path}`}>
          <header>
            <code>{open.path}</code>
            <button type="button" class="icon" aria-label="Close file" onClick={() => setOpen(null)}>
              ×
            </button>
          </header>
          <pre>{open.text}</pre>
        </section>
      ) : null}
    </aside>
  );
}
