/**
 * How long to wait before writing a job's outcome (a completion, a failure) again after the
 * store failed to take it. After the last delay (about 31 seconds in all) the write is given up:
 * the job stays processing and the supervisor's reclaim runs it again.
 */
export const WRITE_RETRY_DELAYS_MS: readonly number[] = [100, 250, 500, 1000, 2000, 4000, 8000, 15_000];
