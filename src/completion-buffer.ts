/**
 * Batches completions: handlers that end within a few milliseconds of each other are recorded
 * with one `backend.completeJobs` call, so the store sees one statement (or script) per flush
 * instead of one per job. A store error is retried for the whole batch, except when the store
 * refused the values written: then each job is written alone, so one bad row holds no other.
 * Store errors are retried with the write-retry schedule (operations/write-retries.ts), then
 * the jobs are given up to reclaim.
 */
import type { Backend, CompleteInput } from './backend.js';
import { StoreRejectedError } from './errors.js';
import { toError } from './failure.js';
import { WRITE_RETRY_DELAYS_MS } from './operations/write-retries.js';
import type { Clock } from './types.js';

/** How long a completion waits for others to share its flush. */
export const FLUSH_DELAY_MS = 5;
/**
 * Most completions per call: keeps one statement (or script) to a bounded size. A backend may
 * ask for fewer (Backend.maxCompletionsPerCall); more are written in several calls, one after
 * the other.
 */
export const MAX_FLUSH_SIZE = 500;

interface Entry {
  input: CompleteInput;
  failures: number;
  resolve: (recorded: boolean) => void;
}

export class CompletionBuffer {
  private pending: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly clock: Clock,
    private readonly report: (error: Error) => void,
  ) {}

  /** Resolves once written: true when recorded, false when the job was no longer this worker's. */
  add(input: CompleteInput): Promise<boolean> {
    return new Promise((resolve) => {
      this.pending.push({ input, failures: 0, resolve });
      this.schedule(FLUSH_DELAY_MS);
    });
  }

  /** Writes everything buffered now (used by start() and drains). */
  async flush(): Promise<void> {
    while (this.flushing || this.pending.length > 0) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      clearTimeout(this.timer);
      this.timer = undefined;
      const delay = this.retryDelay();
      // After a store error, wait as the timer would have, rather than hammering the store.
      if (delay > FLUSH_DELAY_MS) await new Promise((resolve) => setTimeout(resolve, delay));
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the timer may have started a write during the wait
      if (!this.flushing && this.pending.length > 0) await this.write();
    }
  }

  private schedule(delay: number): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, delay);
  }

  private write(): Promise<void> {
    const size = Math.min(MAX_FLUSH_SIZE, this.backend.maxCompletionsPerCall ?? MAX_FLUSH_SIZE);
    const batch = this.pending.splice(0, size);
    this.flushing = this.record(batch).finally(() => {
      this.flushing = undefined;
      if (this.pending.length === 0) return;
      // A full batch waiting goes out at once; a store error keeps its retry delay.
      const delay = this.retryDelay();
      if (this.pending.length >= size && delay === FLUSH_DELAY_MS) void this.write();
      else this.schedule(delay);
    });
    return this.flushing;
  }

  private async record(batch: Entry[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      const recorded = new Set(
        await this.backend.completeJobs(
          batch.map((e) => e.input),
          this.clock.now(),
        ),
      );
      for (const e of batch) e.resolve(recorded.has(e.input.jobId));
    } catch (err) {
      if (isStoreRejection(err)) {
        await this.rejected(batch, err);
        return;
      }
      const ids = batch.map((e) => e.input.jobId).join(', ');
      this.report(toError(err, `recording the completion of job(s) ${ids} failed`));
      for (const e of batch) {
        if (++e.failures > WRITE_RETRY_DELAYS_MS.length) {
          // The job stays processing; the supervisor's reclaim runs it again.
          this.report(new Error(`gave up recording the completion of job ${e.input.jobId}; it will be reclaimed`));
          e.resolve(false);
        } else {
          this.pending.push(e);
        }
      }
    }
  }

  /**
   * The store refused the values of a flush. One bad row must not hold the others: a batch is
   * written again job by job, and a single job whose output is refused completes without it
   * (as a return value that validation refuses does). Repeating a refused write cannot succeed,
   * so none is retried; a job refused even without output is left to reclaim.
   */
  private async rejected(batch: Entry[], err: unknown): Promise<void> {
    if (batch.length > 1) {
      await Promise.all(batch.map((e) => this.record([e])));
      return;
    }
    const entry = batch[0]!;
    const { jobId } = entry.input;
    if (entry.input.output === undefined) {
      this.report(
        toError(err, `the store refused the completion of job ${jobId}; it stays processing until reclaimed`),
      );
      entry.resolve(false);
      return;
    }
    this.report(toError(err, `the store refused the output of job ${jobId}; the job completes without it`));
    const withoutOutput = { ...entry.input };
    delete withoutOutput.output;
    await this.record([{ ...entry, input: withoutOutput }]);
  }

  /** Immediate when nothing failed; otherwise by the most failed entry. */
  private retryDelay(): number {
    const failures = Math.max(0, ...this.pending.map((e) => e.failures));
    return failures === 0 ? FLUSH_DELAY_MS : WRITE_RETRY_DELAYS_MS[failures - 1]!;
  }
}

/** Whether the store refused the values written (also when the error was wrapped on the way). */
function isStoreRejection(err: unknown): boolean {
  let current = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof StoreRejectedError) return true;
    current = current.cause;
  }
  return false;
}
