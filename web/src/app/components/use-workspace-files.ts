/**
 * The file list of one folder of the browser workspace, read again whenever
 * the workspace changes. A listing that fails keeps its cause until a later one succeeds
 * (`retry`, or the next change).
 * @module
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { OpfsWorkspace, WorkspaceFile } from "../workspace/opfs-workspace.js";
import { workspaceFailureCause } from "../workspace/workspace-failure.js";

export interface WorkspaceFiles {
  readonly files: readonly WorkspaceFile[];
  /** Why the last listing failed, or null. */
  readonly failure: string | null;
  readonly retry: () => void;
}

export function useWorkspaceFiles(workspace: OpfsWorkspace, folder: string, available: boolean): WorkspaceFiles {
  const [files, setFiles] = useState<readonly WorkspaceFile[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const retry = useCallback(() => {
    void workspace.list(folder).then(
      (listed) => {
        setFiles(listed);
        setFailure(null);
      },
      (err: unknown) => setFailure(workspaceFailureCause(err)),
    );
  }, [workspace, folder]);
  useEffect(() => {
    if (!available) return;
    retry();
    return workspace.onChange(retry);
  }, [workspace, available, retry]);
  return { files, failure, retry };
}
