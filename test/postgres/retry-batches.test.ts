/**
 * retryAllFailedJobs on PostgreSQL walks the failed jobs of its filter batch after batch, newest
 * first, each batch below the last one's ids: every matching job is retried once, whatever the
 * batch size.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bulkBatch } from '../../src/backends/postgres/bulk.js';
import { addFailedJobs } from '../conformance/job-states.js';
import { usePostgres } from './support.js';

const DEFAULT = { ...bulkBatch };

describe('retryAllFailedJobs batches (postgres)', () => {
  const ctx = usePostgres();
  afterEach(() => {
    Object.assign(bulkBatch, DEFAULT);
  });

  it('retries every matching failed job once across batches smaller than their number', async () => {
    const q = ctx.queue();
    const mail = await addFailedJobs(q, 'mail', 23);
    const other = await addFailedJobs(q, 'other', 5);
    bulkBatch.size = 5;
    expect(await q.retryAllFailedJobs({ jobType: 'mail' })).toBe(23);
    const { rows } = await ctx.sql.query<{ job_id: string; n: string }>(
      `SELECT job_id, count(*) AS n FROM ${ctx.table('job_events')} WHERE event_type = 'retried' GROUP BY job_id`,
    );
    expect(rows.map((r) => Number(r.job_id)).sort((a, b) => a - b)).toEqual(mail);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect((await q.queryJobs({ status: 'failed' })).map((j) => j.id).sort((a, b) => a - b)).toEqual(other);
  });
});
