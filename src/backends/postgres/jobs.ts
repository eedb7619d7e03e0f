/**
 * Adding and reading jobs (SPEC §4.1, §4.2) on PostgreSQL. SQL in queries/jobs.ts and
 * queries/events.ts; row mapping in rows.ts.
 */
import type { AddJobsInput, AddJobsResult, CountQuery, JobQuery, NewJob } from '../../backend.js';
import { prerequisitesBlocked } from '../../store-facts.js';
import { searchLimits } from '../../search-limits.js';
import type { JobEvent, JobRecord, Queryable } from '../../types.js';
import type { PostgresContext } from './context.js';
import { withIndexReads } from './index-walk.js';
import { INPUT_DEFAULTS } from './queries/jobs.js';
import { countJobsSql, listJobsSql, prefixTypesSql } from './queries/list.js';
import { rowToEvent, rowToJob, toId, type EventRow, type JobRow } from './rows.js';

type AddRow = {
  i: number;
  id: string;
  outcome: 'inserted' | 'existing' | 'lost';
  bad: { id: number; status: string | null }[] | null;
};

async function addJobs(ctx: PostgresContext, { jobs, now, db }: AddJobsInput): Promise<AddJobsResult> {
  if (jobs.length === 0) return { ids: [], insertedIds: [] };
  if (db) return insertJobs(ctx, db, jobs, now);
  // A placeholder naming a job with an idempotency key may have to be repointed after the
  // statement (see resolveLostKeys); a transaction keeps the dependent from being claimed, or
  // seen, before that. Every other batch is one statement in autocommit: one round trip.
  const repointable = jobs.some((j) =>
    j.dependsOnJobIds?.some((id) => id < 0 && jobs[-id - 1]!.idempotencyKey !== null),
  );
  if (repointable) return ctx.conn.transaction((tx) => insertJobs(ctx, tx, jobs, now));
  return insertJobs(ctx, null, jobs, now);
}

/**
 * Inserts a batch with its events and wake-up. `target` is the caller's `db` or a transaction;
 * null runs on the pool as a prepared statement. Cron slots insert their jobs through here too.
 */
export async function insertJobs(
  ctx: PostgresContext,
  target: Queryable | null,
  jobs: NewJob[],
  now: Date,
): Promise<AddJobsResult> {
  const run = (text: string, values: unknown[]) =>
    target === null ? ctx.conn.query(text, values, true) : target.query(text, values);
  const plain = !jobs.some((j) => j.idempotencyKey !== null || j.dependsOnJobIds !== null);
  // The statements writing a trace context only when a job carries one (AddStatementOptions).
  const traced = jobs.some((j) => j.traceContext !== null);
  if (plain && jobs.length === 1) {
    const job = jobs[0]!;
    const { sql } = ctx;
    const tagged = job.tags.length > 0;
    const values = oneJobValues(job, now, ctx.names.channel);
    const { rows } = await (traced
      ? run(tagged ? sql.addOneTracedTaggedPlainJob : sql.addOneTracedPlainJob, [...values, job.traceContext])
      : run(tagged ? sql.addOneTaggedPlainJob : sql.addOnePlainJob, values));
    const ids = (rows as { id: string }[]).map((r) => toId(r.id));
    return { ids, insertedIds: ids };
  }
  const payload = JSON.stringify(jobs.map((job) => toInputRow(job, now)));
  const values = [payload, now, ctx.names.channel];
  // Without keys or prerequisites every job is inserted: the plain statement looks nothing up.
  if (plain) {
    const { rows } = await run(traced ? ctx.sql.addTracedPlainJobs : ctx.sql.addPlainJobs, values);
    const ids = (rows as { ids: string }[])[0]!.ids.split(',').map((id) => toId(id));
    return { ids, insertedIds: ids };
  }
  const { rows } = await run(traced ? ctx.sql.addTracedJobs : ctx.sql.addJobs, values);
  const result = rows as AddRow[];
  const bad = result[0]?.bad;
  if (bad) throw prerequisitesBlocked(jobs, bad);

  const ids = result.map((r) => toId(r.id));
  const insertedIds = result.filter((r) => r.outcome === 'inserted').map((r) => toId(r.id));
  const lost = result.filter((r) => r.outcome === 'lost');
  if (lost.length > 0) await resolveLostKeys(ctx, target ?? ctx.conn, jobs, lost, ids, insertedIds);
  return { ids, insertedIds };
}

/**
 * Off the common path: a concurrent insert committed a key this batch also used, after our
 * snapshot was taken. Read the winner's id, and repoint batch placeholders that named ours
 * (with `db`, inside the caller's transaction when there is one).
 */
async function resolveLostKeys(
  ctx: PostgresContext,
  target: Queryable,
  jobs: NewJob[],
  lost: { i: number; id: string }[],
  ids: number[],
  insertedIds: number[],
): Promise<void> {
  const keys = [...new Set(lost.map((r) => jobs[r.i]!.idempotencyKey!))];
  const { rows } = await target.query(ctx.sql.idsByKeys, [keys]);
  const winners = new Map(
    (rows as { id: string; idempotency_key: string }[]).map((r) => [r.idempotency_key, toId(r.id)]),
  );
  const repoint = new Map<number, number>();
  for (const r of lost) {
    const key = jobs[r.i]!.idempotencyKey!;
    const winner = winners.get(key);
    if (winner === undefined) {
      throw new Error(
        `Idempotency key ${JSON.stringify(key)} was taken by a concurrent insert that is gone again; retry the add`,
      );
    }
    repoint.set(toId(r.id), winner);
    ids[r.i] = winner;
  }
  const usesPlaceholders = jobs.some((j) => j.dependsOnJobIds?.some((id) => id < 0));
  if (usesPlaceholders && insertedIds.length > 0) {
    await target.query(ctx.sql.repointDependencies, [insertedIds, [...repoint.keys()], [...repoint.values()]]);
  }
}

async function getJob(ctx: PostgresContext, id: number): Promise<JobRecord | null> {
  const { rows } = await ctx.conn.query<JobRow>(ctx.sql.getJob, [id]);
  return rows[0] ? rowToJob(rows[0]) : null;
}

async function getJobs(ctx: PostgresContext, query: JobQuery): Promise<JobRecord[]> {
  // A type prefix is read as the types it stands for first, so the listing's plan knows them.
  const prefix = query.filter?.jobTypePrefix;
  let prefixTypes: string[] | undefined;
  if (prefix !== undefined) {
    const found = await ctx.conn.query<{ job_type: string }>(prefixTypesSql(ctx.names), [
      prefix,
      searchLimits.prefixTypes,
    ]);
    prefixTypes = found.rows.map((r) => r.job_type);
    if (prefixTypes.length === 0) return [];
  }
  const { text, values, indexReads } = listJobsSql(ctx.names, query, prefixTypes);
  const read = async (db: Queryable) => (await db.query(text, values)).rows as JobRow[];
  const rows = indexReads ? await withIndexReads(ctx, read) : await read(ctx.conn);
  return rows.map(rowToJob);
}

/** Reads the matches up to the limit, walking the status or type index in order (countJobsSql). */
async function countJobs(ctx: PostgresContext, query: CountQuery): Promise<number> {
  const { text, values, indexReads } = countJobsSql(ctx.names, query);
  const read = async (db: Queryable) => (await db.query(text, values)).rows as { n: number }[];
  const rows = indexReads ? await withIndexReads(ctx, read) : await read(ctx.conn);
  return rows[0]?.n ?? 0;
}

async function getJobEvents(ctx: PostgresContext, jobId: number): Promise<JobEvent[]> {
  const { rows } = await ctx.conn.query<EventRow>(ctx.sql.jobEvents, [jobId]);
  return rows.map(rowToEvent);
}

export const jobOperations = { addJobs, getJob, getJobs, countJobs, getJobEvents };

/** The parameters of addOnePlainJobSql for `job` (no idempotency key, no prerequisite jobs). */
function oneJobValues(job: NewJob, now: Date, channel: string): unknown[] {
  return [
    job.jobType,
    JSON.stringify(job.payload ?? null),
    job.maxAttempts,
    job.priority,
    job.runAt,
    job.timeoutMs,
    job.forceKillOnTimeout,
    job.tags,
    job.retryDelay,
    job.retryBackoff,
    job.retryDelayMax,
    job.deadLetterJobType,
    job.group?.id ?? null,
    job.group?.tier ?? null,
    job.dependsOnTags,
    now,
    channel,
  ];
}

/**
 * The input row of one job for the add statements: only the options the job sets, so a plain
 * job is `{"job_type":…,"payload":…}`; the statements restore the left-out defaults.
 */
function toInputRow(job: NewJob, now: Date): Record<string, unknown> {
  const row: Record<string, unknown> = { job_type: job.jobType };
  if (job.payload !== null) row.payload = job.payload;
  if (job.maxAttempts !== INPUT_DEFAULTS.maxAttempts) row.max_attempts = job.maxAttempts;
  if (job.priority !== INPUT_DEFAULTS.priority) row.priority = job.priority;
  if (job.runAt.getTime() !== now.getTime()) row.run_at = job.runAt.toISOString();
  if (job.timeoutMs !== null) row.timeout_ms = job.timeoutMs;
  if (job.forceKillOnTimeout) row.force_kill_on_timeout = true;
  if (job.tags.length > 0) row.tags = job.tags;
  if (job.idempotencyKey !== null) row.idempotency_key = job.idempotencyKey;
  if (job.retryDelay !== null) row.retry_delay = job.retryDelay;
  if (job.retryBackoff !== null) row.retry_backoff = job.retryBackoff;
  if (job.retryDelayMax !== null) row.retry_delay_max = job.retryDelayMax;
  if (job.deadLetterJobType !== null) row.dead_letter_job_type = job.deadLetterJobType;
  if (job.group !== null) {
    row.group_id = job.group.id;
    if (job.group.tier !== null) row.group_tier = job.group.tier;
  }
  if (job.dependsOnJobIds !== null) row.depends_on_job_ids = job.dependsOnJobIds;
  if (job.dependsOnTags !== null) row.depends_on_tags = job.dependsOnTags;
  if (job.traceContext !== null) row.trace_context = job.traceContext;
  return row;
}
