/**
 * Adding and reading jobs (SPEC §4.1, §4.2) on Redis.
 */
import type { AddJobsInput, AddJobsResult, JobQuery } from '../../backend.js';
import { StoreFact, prerequisitesBlocked } from '../../store-facts.js';
import type { JobEvent, JobRecord } from '../../types.js';
import type { BackendContext } from './context.js';
import { toLuaQuery } from './query.js';
import { toJobEvent, toJobRecord, toStoredJob, type JobRow } from './record.js';
import { scriptSlice, walkSlices } from './slices.js';

/** ['ok', ids, insertedIds], or ['blocked', ids, statuses] (add-jobs.lua). */
type AddReply = ['ok', number[], number[]] | ['blocked', number[], string[]];

async function addJobs(ctx: BackendContext, input: AddJobsInput): Promise<AddJobsResult> {
  if (input.db !== undefined) {
    throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'db' });
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
  if (reply[0] === 'blocked') {
    const statuses = reply[2];
    throw prerequisitesBlocked(
      input.jobs,
      reply[1].map((id, i) => ({ id, status: statuses[i] || null })),
    );
  }
  ctx.sawJobIds(reply[1]);
  return { ids: reply[1], insertedIds: reply[2] };
}

async function getJob(ctx: BackendContext, id: number): Promise<JobRecord | null> {
  // One script, so the metadata, payload, output and step data are read at one instant.
  const row = await ctx.run<JobRow | null>('getJob', [id]);
  const job = row ? toJobRecord(...row) : null;
  ctx.sawJobIds(job ? [job.id] : []);
  return job;
}

/**
 * A listing walks in bounded slices (slices.ts): each call skips what it can of the offset and
 * keeps what it can of the limit, and the next goes on below the cursor. Slices are separate
 * reads, so a listing is no longer one snapshot: a job changing meanwhile may show in its old or
 * new state, or, if it leaves or enters the filter, be missed or shown.
 */
async function getJobs(ctx: BackendContext, query: JobQuery): Promise<JobRecord[]> {
  const luaQuery = JSON.stringify(toLuaQuery(query.filter, query.status));
  const rows: JobRow[] = [];
  let skip = query.offset ?? 0;
  await walkSlices(
    (cursor) => {
      const limit = query.limit === undefined ? '' : query.limit - rows.length;
      return ctx.run<[JobRow[], number, number]>('getJobs', [luaQuery, limit, skip, cursor, scriptSlice.read]);
    },
    ([slice, skipped, next]) => {
      rows.push(...slice);
      skip -= skipped;
      return query.limit !== undefined && rows.length >= query.limit ? 0 : next;
    },
  );
  const jobs = rows.map((row) => toJobRecord(...row));
  ctx.sawJobIds(jobs.map((j) => j.id));
  return jobs;
}

async function getJobEvents(ctx: BackendContext, jobId: number): Promise<JobEvent[]> {
  const texts = await ctx.run<string[]>('getJobEvents', [jobId]);
  return texts.map(toJobEvent);
}

export const jobOperations = { addJobs, getJob, getJobs, getJobEvents };
