/**
 * The browser's workspace: files kept in the Origin Private File System, one
 * folder there for each folder a session works in (see
 * {@link folderName}). It answers the agent's `fs/read_text_file` and
 * `fs/write_text_file` in the folders of the session asking, and feeds the
 * side panel. Paths are absolute, as ACP requires; anything outside the
 * session's folders is refused, in words.
 * @module
 */
import { RequestError, type ReadTextFileRequest, type ReadTextFileResponse, type WriteTextFileRequest } from "@agentclientprotocol/sdk";
import { folderName, joinFolder, locate, sliceLines, workspaceRefusal } from "./workspace-paths.js";

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

  /** `folders`: the session's cwd and additional directories. */
  async readTextFile(params: ReadTextFileRequest, folders: readonly string[]): Promise<ReadTextFileResponse> {
    const handle = await this.#file(params.path, folders, false);
    if (!handle) throw new RequestError(-32002, `File not found: ${params.path}`);
    const text = await (await handle.getFile()).text();
    return { content: sliceLines(text, params.line, params.limit) };
  }

  async writeTextFile(params: WriteTextFileRequest, folders: readonly string[]): Promise<Record<string, never>> {
    await this.write(params.path, params.content, folders);
    return {};
  }

  async write(path: string, content: string | Blob, folders: readonly string[]): Promise<void> {
    const handle = await this.#file(path, folders, true);
    const writable = await handle!.createWritable();
    await writable.write(content);
    await writable.close();
    this.#changed();
  }

  /** A new empty file; one that exists is not replaced. */
  async create(path: string, folders: readonly string[]): Promise<void> {
    if (await this.#file(path, folders, false)) throw new Error(`${path} already exists in the browser workspace`);
    await this.write(path, "", folders);
  }

  async remove(path: string, folders: readonly string[]): Promise<void> {
    const { folder, segments } = locate(path, folders);
    const dir = await this.#dir(folder, segments.slice(0, -1), false);
    await dir?.removeEntry(segments.at(-1)!).catch(() => undefined);
    this.#changed();
  }

  /** Every file in one session folder, by absolute path. */
  async list(folder: string): Promise<WorkspaceFile[]> {
    const files: WorkspaceFile[] = [];
    const walk = async (dir: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
      for await (const [name, entry] of dir.entries()) {
        const path = joinFolder(prefix, name);
        if (entry.kind === "directory") await walk(entry as FileSystemDirectoryHandle, path);
        else files.push({ path, bytes: (await (entry as FileSystemFileHandle).getFile()).size });
      }
    };
    await walk(await this.#root(folder), folder);
    return files.sort((a, b) => a.path.localeCompare(b.path));
  }

  async #root(folder: string): Promise<FileSystemDirectoryHandle> {
    const name = folderName(folder);
    try {
      return await (await navigator.storage.getDirectory()).getDirectoryHandle(name, { create: true });
    } catch (err) {
      // Put there by something else on this origin; the browser's own text names neither the file nor the folder.
      if (isTypeMismatch(err)) throw new Error(`This site's private file system holds a file named "${name}" where the folder for ${folder} belongs`, { cause: err });
      throw err;
    }
  }

  async #dir(folder: string, segments: string[], create: boolean): Promise<FileSystemDirectoryHandle | undefined> {
    let dir = await this.#root(folder);
    for (const [i, name] of segments.entries()) {
      try {
        dir = await dir.getDirectoryHandle(name, { create });
      } catch (err) {
        // A file where a directory would be: to read, the path does not exist; to write, it cannot.
        if (!create && (isNotFound(err) || isTypeMismatch(err))) return undefined;
        const at = joinFolder(folder, segments.slice(0, i + 1).join("/"));
        if (isTypeMismatch(err)) throw workspaceRefusal(`${at} is a file in the browser workspace, not a directory`);
        throw err;
      }
    }
    return dir;
  }

  async #file(path: string, folders: readonly string[], create: boolean): Promise<FileSystemFileHandle | undefined> {
    const { folder, segments } = locate(path, folders);
    const dir = await this.#dir(folder, segments.slice(0, -1), create);
    if (!dir) return undefined;
    try {
      return await dir.getFileHandle(segments.at(-1)!, { create });
    } catch (err) {
      if (isTypeMismatch(err)) throw workspaceRefusal(`${path} is a directory in the browser workspace`);
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
