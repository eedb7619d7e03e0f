/**
 * The job lifecycle hooks (SPEC §4.10), emitted here and nowhere else: each operation module
 * turns what the backend reported into these calls, so every caller of an operation (the queue,
 * a processor, the supervisor, cron, the dashboard) gets the same hooks. QueueEvents keeps its
 * `emit` protected; this subclass is the only code that reaches it for a `job:*` event.
 */
import { QueueEvents } from '../events.js';
import type { Log } from '../log.js';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/telemetry.js';
import type { JobRecord } from '../types.js';

/** What a hook tells of a job it announces. */
type JobRef = Pick<JobRecord, 'id' | 'jobType'>;

/** @internal The queue's emitter, with one method per lifecycle hook. */
export class JobHooks extends QueueEvents {
  /** `telemetry` counts what the hooks announce (jobs added, completed, failed), in this one place. */
  constructor(
    log?: Log,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {
    super(log);
  }

  added(jobs: readonly { jobId: number; jobType: string }[]): void {
    for (const { jobId, jobType } of jobs) this.emit('job:added', { jobId, jobType });
    this.telemetry.added(jobs);
  }

  /** Jobs cancelled by a request, then the dependents cancelled with them (the backend's cascade). */
  cancelled(cancelledIds: readonly number[], cascaded: readonly { jobId: number }[]): void {
    for (const jobId of cancelledIds) this.emit('job:cancelled', { jobId });
    for (const { jobId } of cascaded) this.emit('job:cancelled', { jobId });
  }

  retried(jobId: number): void {
    this.emit('job:retried', { jobId });
  }

  processing(jobs: readonly JobRef[]): void {
    for (const job of jobs) this.emit('job:processing', { jobId: job.id, jobType: job.jobType });
  }

  completed(job: JobRef): void {
    this.emit('job:completed', { jobId: job.id, jobType: job.jobType });
    this.telemetry.completed(job);
  }

  waiting(job: JobRef): void {
    this.emit('job:waiting', { jobId: job.id, jobType: job.jobType });
  }

  failed(job: JobRef, error: Error, willRetry: boolean): void {
    this.emit('job:failed', { jobId: job.id, jobType: job.jobType, error, willRetry });
    this.telemetry.failed(job, error, willRetry);
  }

  progress(jobId: number, progress: number): void {
    this.emit('job:progress', { jobId, progress });
  }

  output(jobId: number, output: unknown): void {
    this.emit('job:output', { jobId, output });
  }
}
