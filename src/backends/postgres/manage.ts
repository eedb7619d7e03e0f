/**
 * Managing jobs (SPEC §4.3) on PostgreSQL: retry, cancel (with the cascade to dependents),
 * edit, delete, cleanup and reclaim. SQL in queries/manage.ts and queries/cascade.ts.
 */
import type {
  CancelResult,
  CleanupInput,
  DeleteJobResult,
  JobEdit,
  JobSelector,
  ReclaimInput,
  ReclaimResult,
} from '../../backend.js';
import type { JobStatus } from '../../types.js';
import type { Transaction } from './connection.js';
import type { PostgresContext } from './context.js';
import { withIndexReads } from './index-walk.js';
import { cancelJobsSql, editJobsSql, failedBatchSql, retryFailedSql } from './queries/manage.js';
import { toCascaded, toId } from './rows.js';

type KindRow = { kind: string; id: string };
export type Cascaded = { jobId: number; cascadeFrom: number }[];

/** Failed jobs a retry by filter reads per statement. Internal: tests lower it. */
export const retryBatch = { size: 500 };

/**
 * One job, or the failed jobs of a filter batch after batch, newest first. Each batch, in one
 * transaction: the ids of the next failed jobs below the last batch's, read in the order of the
 * status index and no further; then, among them, those still failed and matching the filter
 * retried by their ids in one statement (each job atomically; a job that left `failed` meanwhile
 * is left as it is). The walk reads each failed job once: work in the failed jobs, never in the
 * whole table.
 */
async function retryJobs(ctx: PostgresContext, selector: JobSelector, now: Date): Promise<number[]> {
  if ('jobId' in selector) {
    const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.retryJob, [selector.jobId, now, ctx.names.channel]);
    return rows.map((r) => toId(r.id));
  }
  const retried: number[] = [];
  let before: number | null = null;
  for (;;) {
    const size = retryBatch.size;
    const batch = failedBatchSql(ctx.names, before, size);
    const ids = await withIndexReads(ctx, async (tx) => {
      const read = (await tx.query(batch.text, batch.values)).rows as { id: string }[];
      const found = read.map((r) => toId(r.id));
      if (found.length === 0) return found;
      const retry = retryFailedSql(ctx.names, found, selector.filter, now);
      retried.push(...((await tx.query(retry.text, retry.values)).rows as { id: string }[]).map((r) => toId(r.id)));
      return found;
    });
    if (ids.length < size) return retried;
    before = ids[ids.length - 1]!;
  }
}

async function deleteJob(ctx: PostgresContext, jobId: number): Promise<DeleteJobResult> {
  const { rows } = await ctx.conn.query<{ status: JobStatus; retry_due: boolean; deleted: boolean }>(
    ctx.sql.deleteJob,
    [jobId],
  );
  const row = rows[0];
  if (!row) return { deleted: false, status: null, retryDue: false };
  return { deleted: row.deleted, status: row.status, retryDue: row.retry_due };
}

async function cancelJobs(ctx: PostgresContext, selector: JobSelector, now: Date): Promise<CancelResult> {
  const { text, values } = cancelJobsSql(ctx.names, selector, now);
  return ctx.conn.transaction(async (tx) => {
    const { rows } = await tx.query(text, values);
    const cancelledIds = (rows as { id: string }[]).map((r) => toId(r.id));
    return { cancelledIds, cascaded: await cascade(ctx, tx, cancelledIds, now) };
  });
}

async function editJobs(ctx: PostgresContext, selector: JobSelector, edit: JobEdit, now: Date): Promise<number[]> {
  const { text, values } = editJobsSql(ctx.names, selector, edit, now);
  const { rows } = await ctx.conn.query<{ id: string }>(text, values);
  return rows.map((r) => toId(r.id));
}

async function cleanupOldJobs(ctx: PostgresContext, { olderThan, batchSize }: CleanupInput): Promise<number> {
  return deleteInBatches(ctx, ctx.sql.cleanupJobs, olderThan, batchSize);
}

async function cleanupOldJobEvents(ctx: PostgresContext, { olderThan, batchSize }: CleanupInput): Promise<number> {
  // The events of job_events, then those kept in job rows: `added` (migrations 013, 014), then
  // `processing` and `completed` (migration 018).
  let removed = await deleteInBatches(ctx, ctx.sql.cleanupEvents, olderThan, batchSize);
  for (const text of [ctx.sql.cleanupAddedEvents, ctx.sql.cleanupRunEvents]) {
    for (;;) {
      const { rows } = await ctx.conn.query<{ n: number; more: boolean }>(text, [olderThan, batchSize]);
      removed += rows[0]?.n ?? 0;
      if (!rows[0]?.more) break;
    }
  }
  return removed;
}

/** Batches keep each statement's locks and WAL small; loop until a batch comes back short. */
async function deleteInBatches(
  ctx: PostgresContext,
  text: string,
  olderThan: Date,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await ctx.conn.query<{ n: number }>(text, [olderThan, batchSize]);
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < batchSize) return total;
  }
}

async function reclaimStuckJobs(ctx: PostgresContext, { maxProcessingMs, now }: ReclaimInput): Promise<ReclaimResult> {
  return ctx.conn.transaction(async (tx) => {
    const { rows } = await tx.query(ctx.sql.reclaim, [now, maxProcessingMs, now.toISOString(), ctx.names.channel]);
    const failedIds = idsOfKind(rows as KindRow[], 'failed');
    return {
      requeuedIds: idsOfKind(rows as KindRow[], 'requeued'),
      failedIds,
      deadLetterJobIds: idsOfKind(rows as KindRow[], 'dead_letter'),
      cascaded: await cascade(ctx, tx, failedIds, now),
    };
  });
}

export const manageOperations = {
  retryJobs,
  deleteJob,
  cancelJobs,
  editJobs,
  cleanupOldJobs,
  cleanupOldJobEvents,
  reclaimStuckJobs,
};

/**
 * Cancels the dependents of jobs that just ended for good, level by level, inside the
 * transaction that ended them (see cascadeLevelSql for why each level is its own statement).
 * Each level first asks the prepared hint (cascadeHintSql), so a level with nothing to cancel,
 * such as the only one of almost every final failure, costs no planning of the cascade's
 * statement. At most two statements per level of the dependency graph, never per job.
 */
export async function cascade(ctx: PostgresContext, tx: Transaction, ended: number[], now: Date): Promise<Cascaded> {
  const cascaded: Cascaded = [];
  let parents = ended;
  while (parents.length > 0) {
    const hint = await tx.query(ctx.sql.cascadeHint, [parents], true);
    if (!(hint.rows[0] as { live: boolean }).live) break;
    const { rows } = await tx.query(ctx.sql.cascadeLevel, [parents, now]);
    const level = toCascaded(rows as { id: string; cascade_from: string }[]);
    cascaded.push(...level);
    parents = level.map((c) => c.jobId);
  }
  return cascaded.sort((a, b) => a.jobId - b.jobId);
}

function idsOfKind(rows: KindRow[], kind: string): number[] {
  return rows.filter((r) => r.kind === kind).map((r) => toId(r.id));
}
