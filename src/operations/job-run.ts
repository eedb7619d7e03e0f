/**
 * The writes a running handler makes through its context (DETAILS "Handler context"):
 * progress, output, steps, prolong, waits and tokens. Every write is fenced by the backend:
 * false (or `lost`) means the job is no longer this worker's, and nothing was recorded.
 */
import type { EnterWaitInput, EnterWaitResult } from '../backend.js';
import type { ClaimedJob } from '../backend.js';
import type { CreateTokenOptions, WaitToken } from '../types.js';
import type { OperationsContext } from './context.js';
import type { TokenOperations } from './tokens.js';

/** @internal One claimed job's writes, under the worker that holds it. */
export class JobRunOperations {
  constructor(
    private readonly ctx: OperationsContext,
    private readonly tokens: TokenOperations,
    readonly job: ClaimedJob,
    readonly workerId: string,
  ) {}

  now(): Date {
    return this.ctx.clock.now();
  }

  /** Stores progress (an integer from 0 to 100) and emits `job:progress`. */
  async setProgress(progress: number): Promise<boolean> {
    const { job, workerId } = this;
    const recorded = await this.ctx.backend.setProgress({ jobId: job.id, workerId, progress, now: this.now() });
    if (recorded) this.ctx.hooks.progress(job.id, progress);
    return recorded;
  }

  /** Stores a JSON-storable output and emits `job:output`. */
  async setOutput(output: unknown): Promise<boolean> {
    const { job, workerId } = this;
    const recorded = await this.ctx.backend.setOutput({ jobId: job.id, workerId, output, now: this.now() });
    if (recorded) this.ctx.hooks.output(job.id, output);
    return recorded;
  }

  saveStep(stepName: string, value: unknown): Promise<boolean> {
    return this.ctx.backend.saveStep({ jobId: this.job.id, workerId: this.workerId, stepName, value, now: this.now() });
  }

  /** Moves the deadline (`timeoutMs` from now; null: a heartbeat only) and refreshes the lock. */
  prolong(timeoutMs: number | null): Promise<boolean> {
    return this.ctx.backend.prolongJob({ jobId: this.job.id, workerId: this.workerId, timeoutMs, now: this.now() });
  }

  /**
   * processing → waiting. The `job:waiting` hook follows when the run ends as a wait (see
   * ProcessingOperations.waited): a handler may still fail or be lost before that.
   */
  enterWait(input: Omit<EnterWaitInput, 'jobId' | 'workerId'>): Promise<EnterWaitResult> {
    return this.ctx.backend.enterWait({ jobId: this.job.id, workerId: this.workerId, ...input });
  }

  /** A token owned by this job. */
  createToken(options: CreateTokenOptions | undefined): Promise<{ id: string }> {
    return this.tokens.create(options, this.job.id);
  }

  getToken(tokenId: string): Promise<WaitToken | null> {
    return this.tokens.get(tokenId);
  }
}
