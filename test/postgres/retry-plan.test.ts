/**
 * A retry of every failed job of a filter, and a bounded count, cost work in the failed jobs, not
 * in the table: among many finished jobs, the batches of retryAllFailedJobs (postgres/bulk.ts) read the failed jobs
 * once in all (each batch goes on below the last one's ids) and the count stops at its limit,
 * with stale statistics (right after a bulk insert) and with fresh ones. Measured as in
 * bulk-plan.test.ts: rows every plan node produced or threw away, times its loops.
 */
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CountQuery } from '../../src/backend.js';
import { bulkBatch } from '../../src/backends/postgres/bulk.js';
import { countJobsSql } from '../../src/backends/postgres/queries/list.js';
import { ID_LOOKUPS, INDEX_READS } from '../../src/backends/postgres/index-walk.js';
import { ABOVE_EVERY_ID, retryBatchSql, statusBatchSql } from '../../src/backends/postgres/queries/manage.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { nodes, plansWithNested, rowWork, type PlanNode } from './plans.js';
import { usePostgres } from './support.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
/** Finished jobs around the failed ones. */
const FINISHED = 80_000;
/** Failed jobs, every other one of the filter's type. */
const FAILED = 4_000;
/**
 * Work allowed per failed job, over the whole walk: a linear plan does about 9 (each batch's
 * rows pass a few nodes); a walk of the primary key past the newer finished jobs did 20 and more.
 */
const PER_JOB = 12;

describe('retry by filter and count plans (postgres)', () => {
  const ctx = usePostgres({ truncate: false });
  const mail = { jobType: 'mail' };

  async function fill(): Promise<void> {
    const jobs = ctx.table('job_queue');
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, status, run_at, created_at, updated_at)
       SELECT CASE WHEN g % 2 = 0 THEN 'mail' ELSE 'other' END, '{}', 'failed', $1::timestamptz, $1::timestamptz,
         $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [NOW, FAILED],
    );
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, status, run_at, created_at, updated_at)
       SELECT CASE WHEN g % 2 = 0 THEN 'mail' ELSE 'other' END, '{}', 'completed', $1::timestamptz,
         $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [NOW, FINISHED],
    );
  }

  async function explain(client: pg.PoolClient, text: string, values: unknown[]): Promise<PlanNode> {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    return (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
  }

  /**
   * The statements of one retryAllFailedJobs({ jobType: 'mail' }), as the backend runs them
   * (postgres/bulk.ts), rolled back: their work (the batch read's, inside its function, too),
   * the jobs retried and the statements run.
   */
  async function measureRetry(): Promise<{ work: number; retried: number; statements: number }> {
    const t = schemaNames(ctx.schema);
    const client = await ctx.sql.connect();
    let work = 0;
    let retried = 0;
    let statements = 0;
    try {
      await client.query('BEGIN');
      await client.query(ID_LOOKUPS);
      let before: number | string = ABOVE_EVERY_ID;
      for (;;) {
        const size = bulkBatch.size;
        const read: unknown[] = ['failed', before, size];
        work += (await plansWithNested(client, statusBatchSql(t), read)).reduce((sum, plan) => sum + rowWork(plan), 0);
        const { rows } = await client.query<{ id: string }>(statusBatchSql(t), read);
        const ids = rows.map((r) => Number(r.id));
        statements += 1;
        if (ids.length > 0) {
          const retry = retryBatchSql(t, { batch: ids, status: 'failed', filter: mail }, NOW);
          const plan = await explain(client, retry.text, retry.values);
          work += rowWork(plan);
          retried += nodes(plan).find((n) => n['Node Type'] === 'ModifyTable')?.['Actual Rows'] ?? 0;
          statements += 1;
        }
        if (ids.length < size) break;
        before = ids[ids.length - 1]!;
      }
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    return { work, retried, statements };
  }

  async function countWork(query: CountQuery): Promise<{ work: number; count: number }> {
    const { text, values, indexReads } = countJobsSql(schemaNames(ctx.schema), query);
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      if (indexReads) await client.query(INDEX_READS);
      const work = rowWork(await explain(client, text, values));
      const { rows } = await client.query<{ n: number }>(text, values);
      await client.query('ROLLBACK');
      return { work, count: rows[0]!.n };
    } finally {
      client.release();
    }
  }

  async function expectLinear(): Promise<void> {
    const retry = await measureRetry();
    expect(retry.retried).toBe(FAILED / 2);
    // 4,000 failed jobs in batches of 500: eight reads and retries, then a read that finds none.
    expect(retry.statements).toBe(17);
    expect(retry.work, `retry: rows of work ${retry.work}`).toBeLessThanOrEqual(PER_JOB * FAILED);
    // A count stops at its limit, whatever the matches beyond it.
    const capped = await countWork({ status: 'completed', limit: 1_001 });
    expect(capped.count).toBe(1_001);
    expect(capped.work, `capped count: rows of work ${capped.work}`).toBeLessThanOrEqual(PER_JOB * 1_001);
    const mailJobs = await countWork({ filter: mail, limit: 1_001 });
    expect(mailJobs.count).toBe(1_001);
    expect(mailJobs.work, `count by type: rows of work ${mailJobs.work}`).toBeLessThanOrEqual(PER_JOB * 1_001);
    const failedMail = await countWork({ status: 'failed', filter: mail, limit: 10_001 });
    expect(failedMail.count).toBe(FAILED / 2);
    expect(failedMail.work, `count: rows of work ${failedMail.work}`).toBeLessThanOrEqual(PER_JOB * FAILED);
  }

  beforeAll(async () => {
    await fill();
  }, 120_000);

  it('stays linear in the failed jobs before ANALYZE', async () => {
    await expectLinear();
  }, 120_000);

  it('stays linear in the failed jobs after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE ${ctx.table('job_queue')}`);
    await expectLinear();
  }, 120_000);
});
