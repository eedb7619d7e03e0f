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
import { walkInBatches } from './bulk.js';
import { cancelJobsSql, editJobsSql, type JobTarget, retryBatchSql } from './queries/manage.js';
import { toCascaded, toId } from './rows.js';

type KindRow = { kind: string; id: string };
export type Cascaded = { jobId: number; cascadeFrom: number }[];

/**
 * One job, or the failed jobs of a filter batch after batch (bulk.ts), each batch's jobs still
 * failed and matching the filter retried in one statement.
 */
async function retryJobs(ctx: PostgresContext, selector: JobSelector, now: Date): Promise<number[]> {
  if ('jobId' in selector) {
    const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.retryJob, [selector.jobId, now, ctx.names.channel]);
    return rows.map((r) => toId(r.id));
  }
  const retried: number[] = [];
  await walkInBatches(ctx, { status: 'failed', filter: selector.filter }, async (tx, target) => {
    const { text, values } = retryBatchSql(ctx.names, target, now);
    const ids = ((await tx.query(text, values)).rows as { id: string }[]).map((r) => toId(r.id));
    retried.push(...ids);
    return ids.length;
  });
  return retried;
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

/**
 * One job, or the pending jobs of a filter batch after batch (bulk.ts), each batch with the
 * cascade to its dependents in its transaction. A cancel by filter starts with a batch of one
 * job, to size the next ones by the cascade it brought.
 */
async function cancelJobs(ctx: PostgresContext, selector: JobSelector, now: Date): Promise<CancelResult> {
  const cancelOne = async (tx: Transaction, target: JobTarget): Promise<CancelResult> => {
    const { text, values } = cancelJobsSql(ctx.names, target, now);
    const cancelledIds = ((await tx.query(text, values)).rows as { id: string }[]).map((r) => toId(r.id));
    return { cancelledIds, cascaded: await cascade(ctx, tx, cancelledIds, now) };
  };
  if ('jobId' in selector) return ctx.conn.transaction((tx) => cancelOne(tx, selector));
  const result: CancelResult = { cancelledIds: [], cascaded: [] };
  await walkInBatches(ctx, { status: 'pending', filter: selector.filter, first: 1 }, async (tx, target) => {
    const { cancelledIds, cascaded } = await cancelOne(tx, target);
    result.cancelledIds.push(...cancelledIds);
    result.cascaded.push(...cascaded);
    return cancelledIds.length + cascaded.length;
  });
  result.cancelledIds.sort((a, b) => a - b);
  result.cascaded.sort((a, b) => a.jobId - b.jobId);
  return result;
}

/** One job, or the pending jobs of a filter batch after batch (bulk.ts). */
async function editJobs(ctx: PostgresContext, selector: JobSelector, edit: JobEdit, now: Date): Promise<number[]> {
  const editOne = async (on: Transaction, target: JobTarget): Promise<number[]> => {
    const { text, values } = editJobsSql(ctx.names, target, edit, now);
    return ((await on.query(text, values)).rows as { id: string }[]).map((r) => toId(r.id));
  };
  if ('jobId' in selector) return editOne(ctx.conn, selector);
  const edited: number[] = [];
  await walkInBatches(ctx, { status: 'pending', filter: selector.filter }, async (tx, target) => {
    const ids = await editOne(tx, target);
    edited.push(...ids);
    return ids.length;
  });
  return edited.sort((a, b) => a - b);
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
