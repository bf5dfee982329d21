/**
 * When and how long to wait before asking the model again. Pure, so the
 * schedule is unit-tested rather than discovered in production.
 */
import { ProviderError } from "./model-provider.js";

export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 8_000 };

export function shouldRetry(err: unknown, attempt: number, policy: RetryPolicy): boolean {
  return err instanceof ProviderError && err.retryable && attempt < policy.attempts;
}

/** Exponential backoff with jitter: attempt n waits between half and all of min(max, base×2^(n-1)). */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
