/**
 * A sub-agent's wait for its tenant slot, bounded by the time its task has:
 * a tenant at its `maxConcurrentSubagents` limit for that long fails the task
 * instead of holding the parent's turn, and what the wait took is taken off
 * the time the task then runs.
 */
export type SlotRelease = () => Promise<void>;

export async function holdSlotWithin(
  hold: (signal: AbortSignal) => Promise<SlotRelease>,
  taskSignal: AbortSignal,
  limitMs: number,
): Promise<SlotRelease> {
  const waiting = new AbortController();
  const stop = () => waiting.abort(taskSignal.reason);
  taskSignal.addEventListener("abort", stop, { once: true });
  if (taskSignal.aborted) stop();
  const timer = setTimeout(() => waiting.abort(new Error(`No sub-agent slot became free within ${durationText(limitMs)}: the tenant is at its maxConcurrentSubagents limit.`)), limitMs);
  try {
    return await hold(waiting.signal);
  } finally {
    clearTimeout(timer);
    taskSignal.removeEventListener("abort", stop);
  }
}

function durationText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
