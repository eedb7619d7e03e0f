/**
 * Bulk actions on PostgreSQL work in batches, each its own short transaction (postgres/bulk.ts):
 * cancelAllUpcomingJobs (with its cascade), editAllPendingJobs, retryAllFailedJobs and
 * cleanupOldJobs never change more than one batch of jobs in a transaction, so another client's
 * write on a matching job waits for one batch at most, never for the whole run. Counted in the
 * store: statement triggers on job_queue log the jobs each transaction updated or deleted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bulkBatch } from '../../src/backends/postgres/bulk.js';
import { usePostgres } from './support.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
/** Before any cleanup's cutoff: the queue's clock is the real one. */
const OLD = new Date('2020-01-01T00:00:00.000Z');
/** Jobs of a bulk action: six batches and more. */
const N = 3_000;

describe('bulk actions in batches (postgres)', () => {
  const ctx = usePostgres();
  const jobs = () => ctx.table('job_queue');
  const log = () => `"${ctx.schema}".test_bulk_writes`;

  beforeEach(async () => {
    await ctx.sql.query(`
      CREATE TABLE IF NOT EXISTS ${log()} (xid bigint NOT NULL, ids bigint[] NOT NULL);
      TRUNCATE ${log()};
      CREATE OR REPLACE FUNCTION "${ctx.schema}".test_log_bulk_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${log()} SELECT txid_current(), array_agg(id) FROM changed HAVING count(*) > 0;
        RETURN NULL;
      END $$;
      CREATE TRIGGER test_bulk_updates AFTER UPDATE ON ${jobs()} REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION "${ctx.schema}".test_log_bulk_writes();
      CREATE TRIGGER test_bulk_deletes AFTER DELETE ON ${jobs()} REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION "${ctx.schema}".test_log_bulk_writes();`);
  });

  afterEach(async () => {
    await ctx.sql.query(`
      DROP TRIGGER test_bulk_updates ON ${jobs()};
      DROP TRIGGER test_bulk_deletes ON ${jobs()}`);
  });

  /** The ids of the jobs each transaction updated or deleted, in the order of the transactions. */
  async function idsPerTransaction(): Promise<number[][]> {
    const { rows } = await ctx.sql.query<{ ids: string[] }>(
      `SELECT array_agg(id ORDER BY id) AS ids FROM ${log()}, unnest(ids) AS id GROUP BY xid ORDER BY xid`,
    );
    return rows.map((r) => r.ids.map(Number));
  }

  async function rowsPerTransaction(): Promise<number[]> {
    return (await idsPerTransaction()).map((ids) => ids.length);
  }

  /** `count` jobs of type `type` in `status`, last updated at `at`, added in one statement. */
  async function insertJobs(count: number, type: string, status = 'pending', at = NOW): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO ${jobs()} (job_type, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
       SELECT $1, '{}', $2, CASE WHEN $2 = 'failed' THEN 3 ELSE 0 END, 3, $3::timestamptz, $3::timestamptz,
         $3::timestamptz
       FROM generate_series(1, $4::integer)`,
      [type, status, at, count],
    );
  }

  function expectBatches(perTransaction: number[], total: number, batch: number): void {
    expect(perTransaction.reduce((a, b) => a + b, 0)).toBe(total);
    expect(perTransaction.length).toBeGreaterThanOrEqual(Math.ceil(total / batch));
    expect(Math.max(...perTransaction)).toBeLessThanOrEqual(batch);
  }

  it('cancelAllUpcomingJobs changes at most one batch of jobs per transaction', async () => {
    await insertJobs(N, 'bulk');
    const q = ctx.queue();
    expect(await q.cancelAllUpcomingJobs({ jobType: 'bulk' })).toBe(N);
    expectBatches(await rowsPerTransaction(), N, bulkBatch.size);
  });

  it('cancelAllUpcomingJobs cancels the dependents of a batch in its transaction', async () => {
    const q = ctx.queue();
    const parents = await q.addJobs(Array.from({ length: 1_200 }, () => ({ jobType: 'parent', payload: {} })));
    const children = await q.addJobs(
      parents.map((id) => ({ jobType: 'child', payload: {}, dependsOn: { jobIds: [id] } })),
    );
    const cancelled: number[] = [];
    q.on('job:cancelled', ({ jobId }) => cancelled.push(jobId));
    expect(await q.cancelAllUpcomingJobs({ jobType: 'parent' })).toBe(parents.length);
    expect(cancelled.sort((a, b) => a - b)).toEqual([...parents, ...children]);
    const perTransaction = await idsPerTransaction();
    const parentOf = new Map(children.map((id, i) => [id, parents[i]!]));
    for (const ids of perTransaction) {
      const batch = new Set(ids);
      // At most a batch of the jobs the filter matched, and each one's dependent with it.
      expect(ids.filter((id) => !parentOf.has(id)).length).toBeLessThanOrEqual(bulkBatch.size);
      for (const id of ids) if (parentOf.has(id)) expect(batch.has(parentOf.get(id)!)).toBe(true);
    }
    expect(perTransaction.length).toBeGreaterThanOrEqual(Math.ceil(parents.length / bulkBatch.size));
    const { rows } = await ctx.sql.query<{ job_type: string; n: string; from_parent: string }>(
      `SELECT j.job_type, count(*) AS n, count(*) FILTER (WHERE e.metadata ? 'cascadeFrom') AS from_parent
       FROM ${jobs()} j JOIN ${ctx.table('job_events')} e ON e.job_id = j.id AND e.event_type = 'cancelled'
       GROUP BY j.job_type ORDER BY j.job_type`,
    );
    expect(rows).toEqual([
      { job_type: 'child', n: String(parents.length), from_parent: String(parents.length) },
      { job_type: 'parent', n: String(parents.length), from_parent: '0' },
    ]);
  });

  it('editAllPendingJobs changes at most one batch of jobs per transaction', async () => {
    await insertJobs(N, 'bulk');
    expect(await ctx.queue().editAllPendingJobs({ jobType: 'bulk' }, { priority: 5 })).toBe(N);
    expectBatches(await rowsPerTransaction(), N, bulkBatch.size);
  });

  it('retryAllFailedJobs changes at most one batch of jobs per transaction', async () => {
    await insertJobs(N, 'bulk', 'failed');
    expect(await ctx.queue().retryAllFailedJobs({ jobType: 'bulk' })).toBe(N);
    expectBatches(await rowsPerTransaction(), N, bulkBatch.size);
  });

  it('cleanupOldJobs removes at most one batch of jobs per transaction', async () => {
    await insertJobs(N, 'done', 'completed', OLD);
    expect(await ctx.queue().cleanupOldJobs(1, 1_000)).toBe(N);
    expectBatches(await rowsPerTransaction(), N, 1_000);
  });
});
