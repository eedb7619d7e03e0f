/** Waiting in tests: the one `waitFor` and `sleep` every test file uses. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  /** What is awaited, for the failure message ("timed out after 5000 ms waiting for <what>"). */
  what: string;
  /** @default 5000 */
  timeoutMs?: number;
  /** Pause between two checks. @default 20 */
  intervalMs?: number;
}

/**
 * Polls `check` until it returns a truthy value and resolves with that value; fails the test
 * after `timeoutMs`. A check that throws fails at once (wrap it to treat errors as "not yet").
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}`);
    await sleep(options.intervalMs ?? 20);
  }
}
