/**
 * The browser workspace beside the session: the files the agent can read and
 * write (kept in this browser's private file system), upload and create.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { OpfsWorkspace, WORKSPACE_ROOT } from "../workspace/opfs-workspace.js";
import { useWorkspaceFiles } from "./use-workspace-files.js";

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function WorkspacePanel({ workspace }: { workspace: OpfsWorkspace }) {
  const [name, setName] = useState("");
  const [open, setOpen] = useState<{ path: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = useRef<HTMLInputElement>(null);
  const available = OpfsWorkspace.available();
  const { files, failure, retry } = useWorkspaceFiles(workspace, available);

  // The view follows its file: the agent may rewrite it, the user delete it.
  const openPath = open?.path;
  useEffect(() => {
    if (!openPath) return;
    const follow = (next: { path: string; text: string } | null) => setOpen((current) => (current?.path === openPath ? next : current));
    return workspace.onChange(
      () => void workspace.readTextFile({ sessionId: "", path: openPath }).then(({ content }) => follow({ path: openPath, text: content }), () => follow(null)),
    );
  }, [workspace, openPath]);

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
        <code>{WORKSPACE_ROOT}</code>: files kept in this browser. The agent reads and writes them (asking first).
      </p>
      <ul class="files" aria-label="Workspace files">
        {files.map((f) => (
          <li key={f.path} class={open?.path === f.path ? "is-open" : ""}>
            <button type="button" class="file" onClick={guard(async () => setOpen({ path: f.path, text: (await workspace.readTextFile({ sessionId: "", path: f.path })).content }))}>
              {f.path.slice(WORKSPACE_ROOT.length + 1)}
            </button>
            <span class="muted">{size(f.bytes)}</span>
            <button type="button" class="icon" aria-label={`Delete ${f.path}`} onClick={guard(() => workspace.remove(f.path))}>
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
          const path = `${WORKSPACE_ROOT}/${name.trim().replace(/^\/+/, "")}`;
          guard(async () => {
            await workspace.create(path);
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
            for (const file of picked) await workspace.write(`${WORKSPACE_ROOT}/${file.name}`, file);
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
