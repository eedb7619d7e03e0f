/**
 * Batches the outcomes of runs: handlers that end within a few milliseconds of each other are
 * recorded with one backend call, so the store sees one statement (or script) per flush instead
 * of one per job. Completions and failures each have a buffer (completionBuffer, failureBuffer).
 * A store error is retried for the whole batch, except when the store refused the values
 * written: then each job is written alone, so one bad row holds no other. Store errors are
 * retried with the write-retry schedule (operations/write-retries.ts), then the jobs are given
 * up to reclaim.
 */
import type { Backend, CompleteInput, FailInput, FailResult } from './backend.js';
import { StoreRejectedError } from './errors.js';
import { toError } from './failure.js';
import { WRITE_RETRY_DELAYS_MS } from './operations/write-retries.js';
import type { Clock } from './types.js';

/** How long an outcome waits for others to share its flush. */
export const FLUSH_DELAY_MS = 5;
/**
 * Most outcomes per call: keeps one statement (or script) to a bounded size. A backend may ask
 * for fewer (Backend.maxCompletionsPerCall, maxFailuresPerCall); more are written in several
 * calls, one after the other.
 */
export const MAX_FLUSH_SIZE = 500;

/** What a buffer writes, and how. */
export interface OutcomeWriter<I extends { jobId: number }, R> {
  /** Names the outcome in messages: 'completion', 'failure'. */
  readonly what: string;
  /** Most inputs per call, read at each write. */
  readonly maxPerCall: number;
  /** Writes a batch at `now`: one result per input, in order; `notRecorded` for a job no longer ours. */
  write(batch: I[], now: Date): Promise<R[]>;
  /** The result of an input that was not recorded. */
  readonly notRecorded: R;
  /**
   * After the store refused the values of one input alone: the input to write instead, without
   * the part that can be refused, and the message that reports it; undefined when nothing is
   * left to leave out (the job is then given up to reclaim).
   */
  withoutRefused(input: I): { input: I; message: string } | undefined;
}

interface Entry<I, R> {
  input: I;
  failures: number;
  resolve: (result: R) => void;
}

export class WriteBuffer<I extends { jobId: number }, R> {
  private pending: Entry<I, R>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly writer: OutcomeWriter<I, R>,
    private readonly clock: Clock,
    private readonly report: (error: Error) => void,
  ) {}

  /** Resolves once written, with the writer's result (its `notRecorded` when given up). */
  add(input: I): Promise<R> {
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
    const size = Math.min(MAX_FLUSH_SIZE, this.writer.maxPerCall);
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

  private async record(batch: Entry<I, R>[]): Promise<void> {
    if (batch.length === 0) return;
    const { what } = this.writer;
    try {
      const results = await this.writer.write(
        batch.map((e) => e.input),
        this.clock.now(),
      );
      batch.forEach((e, i) => e.resolve(results[i] ?? this.writer.notRecorded));
    } catch (err) {
      if (isStoreRejection(err)) {
        await this.rejected(batch, err);
        return;
      }
      const ids = batch.map((e) => e.input.jobId).join(', ');
      this.report(toError(err, `recording the ${what} of job(s) ${ids} failed`));
      for (const e of batch) {
        if (++e.failures > WRITE_RETRY_DELAYS_MS.length) {
          // The job stays processing; the supervisor's reclaim runs it again.
          this.report(new Error(`gave up recording the ${what} of job ${e.input.jobId}; it will be reclaimed`));
          e.resolve(this.writer.notRecorded);
        } else {
          this.pending.push(e);
        }
      }
    }
  }

  /**
   * The store refused the values of a flush. One bad row must not hold the others: a batch is
   * written again job by job, and a single job is written again without the part that can be
   * refused (a completion without its output, as a return value that validation refuses; a
   * failure without its message). Repeating a refused write cannot succeed, so none is retried;
   * a job refused with nothing left to leave out is left to reclaim.
   */
  private async rejected(batch: Entry<I, R>[], err: unknown): Promise<void> {
    if (batch.length > 1) {
      await Promise.all(batch.map((e) => this.record([e])));
      return;
    }
    const entry = batch[0]!;
    const instead = this.writer.withoutRefused(entry.input);
    if (instead === undefined) {
      const { jobId } = entry.input;
      this.report(
        toError(err, `the store refused the ${this.writer.what} of job ${jobId}; it stays processing until reclaimed`),
      );
      entry.resolve(this.writer.notRecorded);
      return;
    }
    this.report(toError(err, instead.message));
    await this.record([{ ...entry, input: instead.input }]);
  }

  /** Immediate when nothing failed; otherwise by the most failed entry. */
  private retryDelay(): number {
    const failures = Math.max(0, ...this.pending.map((e) => e.failures));
    return failures === 0 ? FLUSH_DELAY_MS : WRITE_RETRY_DELAYS_MS[failures - 1]!;
  }
}

/** Completions: resolves true when recorded, false when the job was no longer this worker's. */
export function completionBuffer(
  backend: Backend,
  clock: Clock,
  report: (error: Error) => void,
): WriteBuffer<CompleteInput, boolean> {
  const writer: OutcomeWriter<CompleteInput, boolean> = {
    what: 'completion',
    get maxPerCall() {
      return backend.maxCompletionsPerCall ?? MAX_FLUSH_SIZE;
    },
    notRecorded: false,
    async write(batch, now) {
      const recorded = new Set(await backend.completeJobs(batch, now));
      return batch.map((c) => recorded.has(c.jobId));
    },
    withoutRefused(input) {
      if (input.output === undefined) return undefined;
      const withoutOutput = { ...input };
      delete withoutOutput.output;
      return {
        input: withoutOutput,
        message: `the store refused the output of job ${input.jobId}; the job completes without it`,
      };
    },
  };
  return new WriteBuffer(writer, clock, report);
}

/** The message a failure is recorded with when the store refused its own. */
export const REFUSED_FAILURE_MESSAGE = 'the error could not be stored';

/** Failures: resolves with what the store did, or null when the job was no longer this worker's. */
export function failureBuffer(
  backend: Backend,
  clock: Clock,
  report: (error: Error) => void,
): WriteBuffer<FailInput, FailResult | null> {
  const writer: OutcomeWriter<FailInput, FailResult | null> = {
    what: 'failure',
    get maxPerCall() {
      return backend.maxFailuresPerCall ?? MAX_FLUSH_SIZE;
    },
    notRecorded: null,
    write: (batch, now) => backend.failJobs(batch, now),
    withoutRefused(input) {
      if (input.message === REFUSED_FAILURE_MESSAGE && input.stack === undefined) return undefined;
      const plain: FailInput = { ...input, message: REFUSED_FAILURE_MESSAGE };
      delete plain.stack;
      return {
        input: plain,
        message: `the store refused the error of job ${input.jobId}; its failure is recorded without it`,
      };
    },
  };
  return new WriteBuffer(writer, clock, report);
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
