/** Sends `signal` to the process group `pgid` (a detached child's pid); a group already gone is no error. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
