/**
 * Adding and reading jobs (SPEC §4.1, §4.2) on Redis.
 */
import type { AddJobsInput, AddJobsResult, CountQuery, JobQuery, NewJob } from '../../backend.js';
import { StoreFact, prerequisitesBlocked } from '../../store-facts.js';
import { lowerAscii, searchLimits } from '../../search-limits.js';
import type { JobEvent, JobRecord } from '../../types.js';
import type { BackendContext } from './context.js';
import { toLuaQuery } from './query.js';
import { addedEventText, toJobEvent, toJobRecord, toStoredJob, toStoredJobText, type JobRow } from './record.js';
import { scriptSlice, walkSlices } from './slices.js';

/** ['ok', ids, insertedIds], or ['blocked', ids, statuses] (add-jobs.lua). */
type AddReply = ['ok', number[], number[]] | ['blocked', number[], string[]];

/** A job that needs no more than the writes every job makes (add-job.lua). */
function isPlain(job: NewJob): boolean {
  return (
    job.idempotencyKey === null &&
    job.group === null &&
    job.tags.length === 0 &&
    (job.dependsOnJobIds === null || job.dependsOnJobIds.length === 0) &&
    (job.dependsOnTags === null || job.dependsOnTags.length === 0)
  );
}

/**
 * A batch entry of add-jobs.lua. The stored metadata travels as text the script saves as is
 * (`meta`), with `job` holding only the fields it reads; a job naming dependencies by id gets
 * its full metadata as `job` instead, since the script rewrites that list (placeholders).
 */
function batchEntry(job: NewJob, now: Date) {
  const payload = JSON.stringify(job.payload);
  const added = addedEventText(job);
  if (job.dependsOnJobIds !== null && job.dependsOnJobIds.length > 0) {
    return { job: toStoredJob(job, now), payload, added };
  }
  const read: Record<string, unknown> = {
    jobType: job.jobType,
    status: 'pending',
    priority: job.priority,
    runAt: job.runAt.getTime(),
  };
  if (job.tags.length > 0) read.tags = job.tags;
  if (job.dependsOnTags !== null && job.dependsOnTags.length > 0) read.dependsOnTags = job.dependsOnTags;
  if (job.idempotencyKey !== null) read.idempotencyKey = job.idempotencyKey;
  return { job: read, meta: toStoredJobText(job, now), payload, added };
}

async function addJobs(ctx: BackendContext, input: AddJobsInput): Promise<AddJobsResult> {
  if (input.db !== undefined) {
    throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'db' });
  }
  const jobs = input.jobs;
  if (jobs.length === 0) return { ids: [], insertedIds: [] };
  // Payloads and `added` metadata travel as JSON text, stored verbatim: the scripts never
  // decode them, so numbers keep full precision.
  if (jobs.length === 1 && isPlain(jobs[0]!)) {
    const job = jobs[0]!;
    const id = await ctx.run<number>('addJob', [
      input.now.getTime(),
      toStoredJobText(job, input.now),
      JSON.stringify(job.payload),
      job.jobType,
      job.priority,
      job.runAt.getTime(),
    ]);
    ctx.sawJobIds([id]);
    return { ids: [id], insertedIds: [id] };
  }
  const batch = jobs.map((job) => batchEntry(job, input.now));
  const reply = await ctx.run<AddReply>('addJobs', [input.now.getTime(), JSON.stringify(batch)]);
  if (reply[0] === 'blocked') {
    const statuses = reply[2];
    throw prerequisitesBlocked(
      jobs,
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
 * new state, or, if it leaves or enters the filter, be missed or shown. A keyset page (`before`)
 * starts the walk below that id, where a slice cursor would: a range read of the index, like a
 * first page. A payload search walks from the newest job still (its bound counts from there),
 * keeping only the jobs below `before`.
 */
async function getJobs(ctx: BackendContext, query: JobQuery): Promise<JobRecord[]> {
  const lua = toLuaQuery(query.filter, query.status);
  if (query.payloadContains !== undefined) {
    lua.search = lowerAscii(query.payloadContains);
    if (query.before !== undefined) lua.below = query.before;
  }
  const start = query.before === undefined || lua.search !== undefined ? '' : query.before;
  const luaQuery = JSON.stringify(lua);
  const rows: JobRow[] = [];
  let skip = query.offset ?? 0;
  // A payload search looks at no more than searchLimits.payloadScan jobs over the whole walk.
  let scanLeft: number | '' = lua.search === undefined ? '' : searchLimits.payloadScan;
  await walkSlices(
    (cursor) => {
      const limit = query.limit === undefined ? '' : query.limit - rows.length;
      return ctx.run<[JobRow[], number, number, number]>('getJobs', [
        luaQuery,
        limit,
        skip,
        cursor,
        scriptSlice.read,
        scanLeft,
      ]);
    },
    ([slice, skipped, next, left]) => {
      rows.push(...slice);
      skip -= skipped;
      if (scanLeft !== '') scanLeft = left;
      return query.limit !== undefined && rows.length >= query.limit ? 0 : next;
    },
    start,
  );
  const jobs = rows.map((row) => toJobRecord(...row));
  ctx.sawJobIds(jobs.map((j) => j.id));
  return jobs;
}

/** Counts in bounded slices (count-jobs.lua), at once when one index holds exactly the matches. */
async function countJobs(ctx: BackendContext, query: CountQuery): Promise<number> {
  const luaQuery = JSON.stringify(toLuaQuery(query.filter, query.status));
  let count = 0;
  await walkSlices(
    (cursor) => ctx.run<[number, number]>('countJobs', [luaQuery, query.limit - count, cursor, scriptSlice.read]),
    ([counted, next]) => {
      count += counted;
      return count >= query.limit ? 0 : next;
    },
  );
  return count;
}

async function getJobEvents(ctx: BackendContext, jobId: number): Promise<JobEvent[]> {
  const texts = await ctx.run<string[]>('getJobEvents', [jobId]);
  return texts.map(toJobEvent);
}

export const jobOperations = { addJobs, getJob, getJobs, countJobs, getJobEvents };
