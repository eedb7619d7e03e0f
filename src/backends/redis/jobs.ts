/**
 * Adding and reading jobs (SPEC §4.1, §4.2) on Redis.
 */
import type { AddJobsInput, AddJobsResult, JobQuery } from '../../backend.js';
import { DependencyError, UnsupportedOnBackendError } from '../../errors.js';
import type { JobEvent, JobRecord } from '../../types.js';
import type { BackendContext } from './context.js';
import { toLuaQuery } from './query.js';
import { toJobEvent, toJobRecord, toStoredJob, type JobRow } from './record.js';

/** ['ok', ids, insertedIds], or ['unknown' | 'ended', dependency ids] (add-jobs.lua). */
type AddReply = [string, number[], number[]?];

export async function addJobs(ctx: BackendContext, input: AddJobsInput): Promise<AddJobsResult> {
  if (input.db !== undefined) {
    throw new UnsupportedOnBackendError(
      'The `db` option of addJob/addJobs runs the insert on a PostgreSQL client, so it is only supported by the postgres backend; this queue uses redis',
    );
  }
  if (input.jobs.length === 0) return { ids: [], insertedIds: [] };
  // Payloads and `added` metadata travel as JSON text, stored verbatim: the script never
  // decodes them, so numbers keep full precision.
  const batch = input.jobs.map((job) => ({
    job: toStoredJob(job, input.now),
    payload: JSON.stringify(job.payload),
    added: JSON.stringify({ jobType: job.jobType, tags: job.tags, idempotencyKey: job.idempotencyKey }),
  }));
  const reply = await ctx.run<AddReply>('addJobs', [input.now.getTime(), JSON.stringify(batch)]);
  if (reply[0] === 'unknown') {
    throw new DependencyError(`Expected \`dependsOn.jobIds\` to name existing jobs, got unknown job ids ${reply[1].join(', ')}`);
  }
  if (reply[0] === 'ended') {
    throw new DependencyError(
      `Expected \`dependsOn.jobIds\` to name jobs that can still complete, got job ids ${reply[1].join(', ')}, already cancelled or failed with no retry left`,
    );
  }
  return { ids: reply[1], insertedIds: reply[2] ?? [] };
}

export async function getJob(ctx: BackendContext, id: number): Promise<JobRecord | null> {
  // One script, so the metadata, payload, output and step data are read at one instant.
  const row = await ctx.run<JobRow | null>('getJob', [id]);
  return row ? toJobRecord(...row) : null;
}

export async function getJobs(ctx: BackendContext, query: JobQuery): Promise<JobRecord[]> {
  const rows = await ctx.run<JobRow[]>('getJobs', [
    JSON.stringify(toLuaQuery(query.filter, query.status)),
    query.limit === undefined ? '' : query.limit,
    query.offset ?? 0,
  ]);
  return rows.map((row) => toJobRecord(...row));
}

export async function getJobEvents(ctx: BackendContext, jobId: number): Promise<JobEvent[]> {
  const texts = await ctx.run<string[]>('getJobEvents', [jobId]);
  return texts.map(toJobEvent);
}
