/**
 * Processing operations (SPEC §4.6, §4.7): claim, and recording each run's outcome (completed,
 * waiting, failed) with its hooks. A processor makes one per worker id; the handler context
 * writes through the JobRunOperations it hands out.
 */
import type { ClaimedJob, ClaimInput, CompleteInput, FailInput, FailResult } from '../backend.js';
import { retryAt } from '../backoff.js';
import { failureMessage, failureStack } from '../failure.js';
import type { Log, LogInput } from '../log.js';
import type { RunTelemetry } from '../telemetry/telemetry.js';
import type { FailureReason } from '../types.js';
import type { OperationsContext } from './context.js';
import { JobRunOperations } from './job-run.js';
import type { TokenOperations } from './tokens.js';
import { completionBuffer, failureBuffer, type WriteBuffer } from '../write-buffer.js';

/** @internal The processor an instance records for. */
export interface Worker {
  workerId: string;
  /** Reports an error to the processor's onError and the queue's `error` event. */
  report(error: Error): void;
  /** The processor's log: the queue's, debug lines as the processor's `verbose` says. */
  log: Log;
}

/** @internal */
export class ProcessingOperations {
  /** Outcomes are batched: one backend call for the handlers that end together. */
  private readonly completions: WriteBuffer<CompleteInput, boolean>;
  private readonly failures: WriteBuffer<FailInput, FailResult | null>;

  constructor(
    private readonly ctx: OperationsContext,
    private readonly tokens: TokenOperations,
    private readonly worker: Worker,
  ) {
    const report = (e: Error) => worker.report(e);
    this.completions = completionBuffer(ctx.backend, ctx.clock, report);
    this.failures = failureBuffer(ctx.backend, ctx.clock, report);
  }

  /** Claims up to `batchSize` due jobs for this worker and emits `job:processing` for each. */
  async claim(input: Omit<ClaimInput, 'workerId' | 'now'>): Promise<ClaimedJob[]> {
    const { backend, clock, hooks, telemetry } = this.ctx;
    const { workerId } = this.worker;
    const jobs = await telemetry.traceClaim(workerId, () =>
      backend.claimJobs({ workerId, ...input, now: clock.now() }),
    );
    hooks.processing(jobs);
    if (jobs.length > 0 && this.worker.log.verbose) {
      const jobIds = jobs.map((j) => j.id);
      this.worker.log.debug(
        `${this.prefix}claimed ${jobs.length} job(s): ${jobIds.join(', ')}`,
        this.fields({ jobIds }),
      );
    }
    return jobs;
  }

  /**
   * Renews the leases of claimed jobs that have not started (the claim-ahead buffer), so the
   * reclaim counts from now; returns the ids still this worker's.
   */
  renewLeases(jobIds: number[]): Promise<number[]> {
    const { backend, clock } = this.ctx;
    return backend.renewLeases({ workerId: this.worker.workerId, jobIds, now: clock.now() });
  }

  /**
   * Hands claimed jobs that never started back to pending, without using an attempt (a
   * `released` event each); returns the ids handed back. A job no longer this worker's is left
   * as it is.
   */
  async release(jobs: ClaimedJob[]): Promise<number[]> {
    const { backend, clock } = this.ctx;
    const jobIds = jobs.map((j) => j.id);
    const released = await backend.releaseJobs({ workerId: this.worker.workerId, jobIds, now: clock.now() });
    if (released.length > 0 && this.worker.log.verbose) {
      this.worker.log.debug(
        `${this.prefix}handed back ${released.length} claimed-ahead job(s) that had not started: ${released.join(', ')}`,
        this.fields({ jobIds: released }),
      );
    }
    return released;
  }

  /** Starts the telemetry of a claimed job's run (its span, pickup latency); end it with the outcome. */
  startRun(job: ClaimedJob): RunTelemetry {
    return this.ctx.telemetry.startRun(job, this.worker.workerId);
  }

  /** The writes of a claimed job's handler. */
  run(job: ClaimedJob): JobRunOperations {
    return new JobRunOperations(this.ctx, this.tokens, job, this.worker.workerId);
  }

  /** Records a completion (batched) and emits `job:completed` once it is written. */
  async complete(job: ClaimedJob, outcome: { hasOutput: boolean; output?: unknown }): Promise<void> {
    const input = {
      jobId: job.id,
      workerId: this.worker.workerId,
      ...(outcome.hasOutput ? { output: outcome.output } : {}),
    };
    if (await this.completions.add(input)) {
      this.ctx.hooks.completed(job);
      this.debugJob(job, () => `completed job ${job.id} (${job.jobType})`);
    } else {
      this.debugJob(job, () => `completion of job ${job.id} discarded: the job is no longer locked by this worker`);
    }
  }

  /** The run ended as a wait: the job is `waiting` in the store already (JobRunOperations.enterWait). */
  waited(job: ClaimedJob): void {
    this.ctx.hooks.waiting(job);
    this.debugJob(job, () => `job ${job.id} (${job.jobType}) is waiting`);
  }

  /**
   * Records a failure (batched, with its retry time, or none when out of attempts) and emits
   * `job:failed` and `job:cancelled` for the dependents the backend cancelled with it, once it
   * is written. A store error is retried on the write-retry schedule; after that the job is left
   * to reclaim.
   */
  async fail(job: ClaimedJob, outcome: { error: Error; reason: FailureReason }): Promise<void> {
    const { clock, hooks } = this.ctx;
    const at = job.attempts < job.maxAttempts ? retryAt(job, job.attempts, clock.now()) : null;
    const input: FailInput = {
      jobId: job.id,
      workerId: this.worker.workerId,
      // Whatever the handler threw, the store gets a bounded string it can hold.
      message: failureMessage(outcome.error),
      // Only a handler's own error has a stack worth keeping: a timeout's or a missing handler's
      // would show the library's timer or lookup.
      ...(outcome.reason === 'handler_error' ? { stack: failureStack(outcome.error) } : {}),
      reason: outcome.reason,
      retryAt: at,
    };
    const result = await this.failures.add(input);
    if (!result) {
      this.debugJob(job, () => `failure of job ${job.id} not recorded: the job is no longer locked by this worker`);
      return;
    }
    // Read before the hook runs: a `once` listener is gone after it.
    const heard = hooks.listenerCount('job:failed') > 0;
    hooks.failed(job, outcome.error, at !== null);
    hooks.cancelled([], result.cascaded);
    const extra = { failureReason: outcome.reason, willRetry: at !== null, error: outcome.error };
    const line = () =>
      `job ${job.id} (${job.jobType}) failed (${outcome.reason}): ${input.message} (${attemptNote(job, at)})`;
    // A failed attempt is news to a program that does not listen for it: a warn line. One that
    // listens has it in hand; its verbose log still shows it.
    if (heard) this.debugJob(job, line, extra);
    else this.worker.log.warn(`${this.prefix}${line()}`, this.about(job, extra));
  }

  /** The console line's lead: which processor writes it. */
  private get prefix(): string {
    return `processor ${this.worker.workerId}: `;
  }

  /** A log line's fields: the worker's id and `extra`. */
  private fields(extra: LogInput): LogInput {
    return { workerId: this.worker.workerId, ...extra };
  }

  /**
   * A debug line about `job`: its message and fields are built only when debug lines are
   * written, so a run without `verbose` pays nothing for them.
   */
  private debugJob(job: ClaimedJob, message: () => string, extra: LogInput = {}): void {
    if (this.worker.log.verbose) this.worker.log.debug(`${this.prefix}${message()}`, this.about(job, extra));
  }

  /** A log line's fields about `job`. */
  private about(job: ClaimedJob, extra: LogInput = {}): LogInput {
    return this.fields({ jobId: job.id, jobType: job.jobType, ...extra });
  }

  /** Writes every buffered outcome now (one-shot runs and drains). */
  async flush(): Promise<void> {
    await Promise.all([this.completions.flush(), this.failures.flush()]);
  }
}

/** How a failure stands: the attempt it was, and the retry that follows or that none does. */
function attemptNote(job: ClaimedJob, retryAt: Date | null): string {
  const attempt = `attempt ${job.attempts} of ${job.maxAttempts}`;
  return retryAt === null ? `${attempt}, no retry` : `${attempt}, retrying at ${retryAt.toISOString()}`;
}
