/**
 * A request from the service that waits for the user (a permission, a
 * question): shown until answered once, or until the service withdraws it
 * (its AbortSignal: a timeout, a cancelled turn, `$/cancel_request`), which
 * answers `withdrawn` and takes the dialog away.
 * @module
 */
export function pendingAnswer<T>(
  signal: AbortSignal,
  withdrawn: T,
  show: (answer: (value: T) => void) => void,
  hide: () => void,
): Promise<T> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: T) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      hide();
      resolve(value);
    };
    const onAbort = () => settle(withdrawn);
    if (signal.aborted) return settle(withdrawn);
    signal.addEventListener("abort", onAbort);
    show(settle);
  });
}
