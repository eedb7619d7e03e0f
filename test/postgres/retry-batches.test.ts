/**
 * retryAllFailedJobs on PostgreSQL walks the failed jobs of its filter batch after batch, newest
 * first, each batch below the last one's ids: every matching job is retried once, whatever the
 * batch size.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { retryBatch } from '../../src/backends/postgres/manage.js';
import { backendOf, type JobQueue } from '../../src/queue.js';
import { usePostgres } from './support.js';

const DEFAULT = { ...retryBatch };

async function addFailed(q: JobQueue, jobType: string, count: number): Promise<number[]> {
  const ids = await q.addJobs(Array.from({ length: count }, (_, i) => ({ jobType, payload: { i } })));
  const backend = backendOf(q);
  const now = q.clock.now();
  await backend.claimJobs({ workerId: 'w', batchSize: count, jobTypes: [jobType], now });
  for (const jobId of ids) {
    await backend.failJob({ jobId, workerId: 'w', message: 'x', reason: 'handler_error', retryAt: null, now });
  }
  return ids;
}

describe('retryAllFailedJobs batches (postgres)', () => {
  const ctx = usePostgres();
  afterEach(() => {
    Object.assign(retryBatch, DEFAULT);
  });

  it('retries every matching failed job once across batches smaller than their number', async () => {
    const q = ctx.queue();
    const mail = await addFailed(q, 'mail', 23);
    const other = await addFailed(q, 'other', 5);
    retryBatch.size = 5;
    expect(await q.retryAllFailedJobs({ jobType: 'mail' })).toBe(23);
    const { rows } = await ctx.sql.query<{ job_id: string; n: string }>(
      `SELECT job_id, count(*) AS n FROM ${ctx.table('job_events')} WHERE event_type = 'retried' GROUP BY job_id`,
    );
    expect(rows.map((r) => Number(r.job_id)).sort((a, b) => a - b)).toEqual(mail);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect((await q.queryJobs({ status: 'failed' })).map((j) => j.id).sort((a, b) => a - b)).toEqual(other);
  });
});
