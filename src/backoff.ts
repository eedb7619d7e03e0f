/**
 * Retry delay rules (SPEC §4.5, DETAILS "Retries, failures, reclaim").
 *
 * - None of `retryDelay`, `retryBackoff`, `retryDelayMax` set: the legacy delay, `2^attempts`
 *   minutes, without jitter.
 * - Backoff (the default once any option is set): `retryDelay * 2^attempts` seconds, times a
 *   jitter factor in [0.5, 1.0], then capped at `retryDelayMax`. Jitter comes before the cap
 *   so the cap is never exceeded.
 * - `retryBackoff: false`: exactly `retryDelay` seconds; `retryDelayMax` has no effect.
 *
 * `attempts` is the number of attempts made so far, the failed one included.
 */

/** The retry settings of a job, as stored (null: not set). */
export interface RetrySettings {
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
}

/** Base retry delay in seconds when a job sets other retry options but not this one. */
export const DEFAULT_RETRY_DELAY_SECONDS = 60;

/**
 * Upper bound of any delay, so `2^attempts` with a large `maxAttempts` still yields a valid
 * Date instead of Infinity: 100 years.
 */
export const MAX_RETRY_DELAY_MS = 100 * 365 * 86_400_000;

/** A source of uniform numbers in [0, 1), like Math.random; injectable for tests. */
export type RandomSource = () => number;

/** The delay before the next attempt, in milliseconds. */
export function retryDelayMs(settings: RetrySettings, attempts: number, random: RandomSource = Math.random): number {
  const { retryDelay, retryBackoff, retryDelayMax } = settings;
  if (retryDelay === null && retryBackoff === null && retryDelayMax === null) {
    return clamp(2 ** attempts * 60_000);
  }
  const baseSeconds = retryDelay ?? DEFAULT_RETRY_DELAY_SECONDS;
  if (retryBackoff === false) return clamp(baseSeconds * 1000);
  const jitter = 0.5 + 0.5 * random();
  let seconds = baseSeconds * 2 ** attempts * jitter;
  if (retryDelayMax !== null) seconds = Math.min(seconds, retryDelayMax);
  return clamp(seconds * 1000);
}

/** When the next attempt runs, counted from `now`. */
export function retryAt(settings: RetrySettings, attempts: number, now: Date, random?: RandomSource): Date {
  return new Date(now.getTime() + retryDelayMs(settings, attempts, random));
}

function clamp(ms: number): number {
  return Math.round(Math.min(ms, MAX_RETRY_DELAY_MS));
}
