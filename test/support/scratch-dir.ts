/**
 * A temporary folder for a test (a proxy's home, an MCP server's cwd), removed
 * when the test process exits, so `npm test` leaves nothing behind in the
 * system's temp folder. Removal waits for the end because a child process may
 * still be using the folder when its test ends. A project that runs each file
 * in a process of its own (`isolate`, as the proxy's) has that process killed,
 * not exited: its files call `afterAll(removeScratchDirs)`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.push(dir) === 1) process.once("exit", removeScratchDirs);
  return dir;
}

export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
