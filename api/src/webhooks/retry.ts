/**
 * When a failed delivery is tried again: exponential backoff, 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, with
 * a last attempt at the give-up time (3 days after the event; webhooks/events.ts), after which it has failed.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];

/**
 * The delays in use. `testBaseMs` (test environment only, PRIZEDRAW_WEBHOOK_RETRY_BASE_MS) makes them short, base,
 * 2 x base, 4 x base, ..., never longer than the real ones, so a test sees retries within seconds.
 */
export type RetryPolicy = { testBaseMs: number | null };

/** The wait after the `attempts`-th failed attempt (1 for the first). */
export function retryDelayMs(attempts: number, policy: RetryPolicy): number {
  const real = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
  return policy.testBaseMs === null ? real : Math.min(real, policy.testBaseMs * 2 ** (attempts - 1));
}

/** The next attempt's time after a failure at `now`, or null: the delivery has failed for good. */
export function nextAttemptAt(attempts: number, now: Date, giveUpAt: string, policy: RetryPolicy): string | null {
  const giveUp = Date.parse(giveUpAt);
  if (now.getTime() >= giveUp) return null;
  return new Date(Math.min(now.getTime() + retryDelayMs(attempts, policy), giveUp)).toISOString();
}
