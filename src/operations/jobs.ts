/**
 * Job operations (SPEC §4.1, §4.3): add, retry, cancel, edit, delete. Each validates its input, calls
 * the backend once, and emits the hooks for everything the backend reports, cascaded
 * cancellations included.
 */
import type { JobSelector } from '../backend.js';
import { ValidationError } from '../errors.js';
import { deleteRefusal } from '../messages.js';
import type { AddJobOptions, EditJobOptions, JobFilter, JobOptions } from '../types.js';
import {
  assertNoPlaceholderCycles,
  normalizeEdit,
  normalizeFilter,
  normalizeJob,
  requireAddOptions,
  requireJobId,
} from '../validation.js';
import type { OperationsContext } from './context.js';

/** @internal */
export class JobOperations {
  constructor(private readonly ctx: OperationsContext) {}

  /** Adds one job; returns its id (the existing id when the idempotency key is taken). */
  async add(options: JobOptions, addOptions: AddJobOptions | undefined): Promise<number> {
    const { backend, clock, hooks, telemetry, limits } = this.ctx;
    const now = clock.now();
    const job = normalizeJob('', options, now, { limits });
    const db = requireAddOptions(addOptions);
    const jobs = [job];
    const { ids, insertedIds } = await telemetry.traceAdd(jobs, false, () => backend.addJobs({ jobs, now, db }));
    const added = insertedIds.map((jobId) => ({ jobId, jobType: job.jobType }));
    hooks.added(added);
    this.ctx.log.debug(`added job ${ids[0]} (${job.jobType})`, { jobId: ids[0], jobType: job.jobType });
    return ids[0]!;
  }

  /** Adds many jobs in one backend call; ids come back in input order. */
  async addMany(list: JobOptions[], addOptions: AddJobOptions | undefined): Promise<number[]> {
    if (!Array.isArray(list)) throw new ValidationError('jobs', 'Expected `jobs` to be an array of job options');
    if (list.length === 0) return [];
    const { backend, clock, hooks, telemetry, limits } = this.ctx;
    const now = clock.now();
    // One job refused refuses the batch: nothing is written (docs/jobs.md "Adding many jobs").
    const jobs = list.map((o, index) =>
      normalizeJob(`jobs[${index}]`, o, now, { batch: { index, size: list.length }, limits }),
    );
    assertNoPlaceholderCycles(jobs);
    const db = requireAddOptions(addOptions);
    const { ids, insertedIds } = await telemetry.traceAdd(jobs, true, () => backend.addJobs({ jobs, now, db }));
    // The first job carrying an id is the one inserted; later duplicates of its key map to it.
    const typeById = new Map<number, string>();
    ids.forEach((id, i) => typeById.has(id) || typeById.set(id, jobs[i]!.jobType));
    const added = insertedIds.map((jobId) => ({ jobId, jobType: typeById.get(jobId)! }));
    hooks.added(added);
    this.ctx.log.debug(`added ${insertedIds.length} of ${jobs.length} jobs`, { jobIds: insertedIds });
    return ids;
  }

  /** failed or cancelled → pending; emits `job:retried` only when the status changed. */
  async retry(jobId: number): Promise<void> {
    requireJobId('jobId', jobId);
    await this.retrySelected({ jobId });
  }

  /** Retries every failed job matching `filter`; returns how many were retried. */
  async retryFailed(filter: JobFilter | undefined): Promise<number> {
    return this.retrySelected({ filter: normalizeFilter(filter) });
  }

  /**
   * Removes a finished job with its events; throws NotFoundError for an unknown id and
   * JobStatusError for a job that has not finished (nothing changes).
   */
  async delete(jobId: number): Promise<void> {
    requireJobId('jobId', jobId);
    const result = await this.ctx.backend.deleteJob(jobId);
    if (!result.deleted) throw deleteRefusal(jobId, result);
    this.ctx.log.debug(`deleted job ${jobId}`, { jobId });
  }

  /** Cancels one pending or waiting job and its pending dependents. */
  async cancel(jobId: number): Promise<void> {
    requireJobId('jobId', jobId);
    await this.cancelSelected({ jobId });
  }

  /** Cancels every pending job matching `filter`; returns how many the request itself cancelled. */
  async cancelPending(filter: JobFilter | undefined): Promise<number> {
    return this.cancelSelected({ filter: normalizeFilter(filter) });
  }

  /** Edits one pending job; does nothing for any other status. */
  async edit(jobId: number, updates: EditJobOptions): Promise<void> {
    requireJobId('jobId', jobId);
    await this.editSelected({ jobId }, updates);
  }

  /** Edits every pending job matching `filter`; returns how many were edited. */
  async editPending(filter: JobFilter | undefined, updates: EditJobOptions): Promise<number> {
    return this.editSelected({ filter: normalizeFilter(filter) }, updates);
  }

  private async retrySelected(selector: JobSelector): Promise<number> {
    const { backend, clock, hooks } = this.ctx;
    const retried = await backend.retryJobs(selector, clock.now());
    for (const jobId of retried) hooks.retried(jobId);
    return retried.length;
  }

  private async cancelSelected(selector: JobSelector): Promise<number> {
    const { backend, clock, hooks } = this.ctx;
    const { cancelledIds, cascaded } = await backend.cancelJobs(selector, clock.now());
    hooks.cancelled(cancelledIds, cascaded);
    return cancelledIds.length;
  }

  private async editSelected(selector: JobSelector, updates: EditJobOptions): Promise<number> {
    const { backend, clock, limits } = this.ctx;
    const now = clock.now();
    const edit = normalizeEdit(updates, now, limits);
    if (Object.keys(edit).length === 0) return 0;
    return (await backend.editJobs(selector, edit, now)).length;
  }
}
