/**
 * The browser's workspace: files kept in the Origin Private File System,
 * mounted at {@link WORKSPACE_ROOT}. It answers the agent's
 * `fs/read_text_file` and `fs/write_text_file` and feeds the side panel.
 * Paths are absolute, as ACP requires; anything outside the mount is refused.
 * @module
 */
import { RequestError, type ReadTextFileRequest, type ReadTextFileResponse, type WriteTextFileRequest } from "@agentclientprotocol/sdk";
import { sliceLines, WORKSPACE_ROOT, workspaceSegments } from "./workspace-paths.js";

export { WORKSPACE_ROOT } from "./workspace-paths.js";

export interface WorkspaceFile {
  /** Absolute, e.g. `/workspace/src/app.ts`. */
  readonly path: string;
  readonly bytes: number;
}

export class OpfsWorkspace {
  readonly #listeners = new Set<() => void>();

  /** Whether this browser offers OPFS here (it needs a secure context: https or localhost). */
  static available(): boolean {
    return typeof navigator !== "undefined" && typeof navigator.storage?.getDirectory === "function" && globalThis.isSecureContext;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const handle = await this.#file(params.path, false);
    if (!handle) throw new RequestError(-32002, `File not found: ${params.path}`, { path: params.path });
    const text = await (await handle.getFile()).text();
    return { content: sliceLines(text, params.line, params.limit) };
  }

  async writeTextFile(params: WriteTextFileRequest): Promise<Record<string, never>> {
    await this.write(params.path, params.content);
    return {};
  }

  async write(path: string, content: string | Blob): Promise<void> {
    const handle = await this.#file(path, true);
    const writable = await handle!.createWritable();
    await writable.write(content);
    await writable.close();
    this.#changed();
  }

  /** A new empty file; one that exists is not replaced. */
  async create(path: string): Promise<void> {
    if (await this.#file(path, false)) throw new Error(`${path} already exists in the browser workspace`);
    await this.write(path, "");
  }

  async remove(path: string): Promise<void> {
    const segments = workspaceSegments(path);
    const dir = await this.#dir(segments.slice(0, -1), false);
    await dir?.removeEntry(segments.at(-1)!).catch(() => undefined);
    this.#changed();
  }

  async list(): Promise<WorkspaceFile[]> {
    const files: WorkspaceFile[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
      for await (const [name, entry] of dir.entries()) {
        const path = `${prefix}/${name}`;
        if (entry.kind === "directory") await walk(entry as FileSystemDirectoryHandle, path);
        else files.push({ path, bytes: (await (entry as FileSystemFileHandle).getFile()).size });
      }
    };
    await walk(await this.#root(), WORKSPACE_ROOT);
    return files.sort((a, b) => a.path.localeCompare(b.path));
  }

  async #root(): Promise<FileSystemDirectoryHandle> {
    try {
      return await (await navigator.storage.getDirectory()).getDirectoryHandle("workspace", { create: true });
    } catch (err) {
      // Put there by something else on this origin; the browser's own text names neither the file nor the folder.
      if (isTypeMismatch(err)) throw new Error(`This site's private file system holds a file named "workspace" where the workspace folder belongs`, { cause: err });
      throw err;
    }
  }

  async #dir(segments: string[], create: boolean): Promise<FileSystemDirectoryHandle | undefined> {
    let dir = await this.#root();
    for (const [i, name] of segments.entries()) {
      try {
        dir = await dir.getDirectoryHandle(name, { create });
      } catch (err) {
        // A file where a directory would be: to read, the path does not exist; to write, it cannot.
        if (!create && (isNotFound(err) || isTypeMismatch(err))) return undefined;
        const at = [WORKSPACE_ROOT, ...segments.slice(0, i + 1)].join("/");
        if (isTypeMismatch(err)) throw RequestError.invalidParams({ path: at }, `${at} is a file in the browser workspace, not a directory`);
        throw err;
      }
    }
    return dir;
  }

  async #file(path: string, create: boolean): Promise<FileSystemFileHandle | undefined> {
    const segments = workspaceSegments(path);
    const dir = await this.#dir(segments.slice(0, -1), create);
    if (!dir) return undefined;
    try {
      return await dir.getFileHandle(segments.at(-1)!, { create });
    } catch (err) {
      if (isTypeMismatch(err)) throw RequestError.invalidParams({ path }, `${path} is a directory in the browser workspace`);
      if (!create && isNotFound(err)) return undefined;
      throw err;
    }
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

function isNotFound(err: unknown): boolean {
  return err instanceof DOMException && err.name === "NotFoundError";
}

/** The entry exists but is of the other kind (a directory asked for as a file, or the reverse). */
function isTypeMismatch(err: unknown): boolean {
  return err instanceof DOMException && err.name === "TypeMismatchError";
}
