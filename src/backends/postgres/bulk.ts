/**
 * Bulk actions by filter on PostgreSQL (retryAllFailedJobs, cancelAllUpcomingJobs,
 * editAllPendingJobs) work in batches, each its own short transaction, so none holds the locks
 * of every matching job for the whole run: another client's write on one of them waits for one
 * batch at most. A batch reads the ids of the next jobs of the action's status below the last
 * batch's, newest first (job_queue_status_batch, migration 019: the status index, in order, no
 * further), then acts on those still in that status and matching the filter, locking them first
 * (queries/manage.ts, targetSql). So a bulk action is no atomic snapshot: each batch is atomic,
 * and a job that changes meanwhile is judged as it is when its batch comes. Walking newest first
 * reaches a job's dependents, added after it, before the job itself, as Redis's slices do.
 */
import type { JobFilter } from '../../types.js';
import type { Transaction } from './connection.js';
import type { PostgresContext } from './context.js';
import { ID_LOOKUPS } from './index-walk.js';
import { ABOVE_EVERY_ID, type BatchTarget, type BulkStatus } from './queries/manage.js';
import { toId } from './rows.js';

/**
 * Jobs a batch of a bulk action takes at most: the changes of one transaction stay near this
 * many rows (the jobs and, for a cancel, the dependents it cascades to). Internal: tests lower it.
 */
export const bulkBatch = { size: 500 };

/**
 * Runs `act` on the jobs of `status` batch after batch, newest first, each batch in its own
 * transaction, until a batch comes back short. `act` returns how many jobs its batch changed
 * (with a cancel's cascade): the next batch is sized so a transaction changes about
 * `bulkBatch.size` jobs, as Redis sizes its slices. `first` is the size of the first batch.
 */
export async function walkInBatches(
  ctx: PostgresContext,
  { status, filter, first = bulkBatch.size }: { status: BulkStatus; filter: JobFilter | undefined; first?: number },
  act: (tx: Transaction, target: BatchTarget) => Promise<number>,
): Promise<void> {
  let before: number | string = ABOVE_EVERY_ID;
  let size = first;
  for (;;) {
    const batch = size;
    const ids = await ctx.conn.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(ctx.sql.statusBatch, [status, before, batch], true);
      const found = rows.map((r) => toId(r.id));
      if (found.length > 0) size = nextBatch(batch, await act(tx, { batch: found, status, filter }));
      return found;
    }, ID_LOOKUPS);
    if (ids.length < batch) return;
    before = ids[ids.length - 1]!;
  }
}

/**
 * The size of the next batch after one of `size` jobs changed `changed` jobs: in proportion, so a
 * transaction changes about `bulkBatch.size` jobs, between one job and `bulkBatch.size`. One
 * job's own cascade is never split, so a job with a larger one still takes one transaction.
 */
function nextBatch(size: number, changed: number): number {
  const target = bulkBatch.size;
  return Math.min(target, Math.max(1, Math.floor((size * target) / Math.max(changed, 1))));
}
