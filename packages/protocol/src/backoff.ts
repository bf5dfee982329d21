/**
 * Reconnect delays: exponential backoff with "full jitter" between a floor and
 * a cap. Pure, with the random source injected, so the schedule is testable.
 * @module
 */

export interface BackoffOptions {
  /** Delay before the first retry, in ms. */
  readonly initialMs: number;
  /** Upper bound of any delay, in ms. */
  readonly maxMs: number;
  /** Growth factor per attempt. */
  readonly factor: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000, factor: 2 };

/** The ceiling for attempt `n` (0-based) before jitter: initial·factor^n, capped. */
export function backoffCeiling(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, Math.floor(attempt));
  return Math.min(options.maxMs, options.initialMs * options.factor ** exponent);
}

/**
 * Delay for attempt `n`: uniformly between half the ceiling and the ceiling.
 * Half-jitter (rather than 0..ceiling) keeps a floor so a restarting service
 * is not hit in a tight loop, while still spreading many proxies apart.
 *
 * @param random - returns a number in [0, 1); `Math.random` in production.
 */
export function backoffDelay(
  attempt: number,
  random: () => number,
  options: BackoffOptions = DEFAULT_BACKOFF,
): number {
  const ceiling = backoffCeiling(attempt, options);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling / 2 + (ceiling / 2) * r);
}
