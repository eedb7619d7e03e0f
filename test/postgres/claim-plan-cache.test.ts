/**
 * A processor's claim is planned once per connection, not on every call: after its first
 * executions the prepared claim statement runs a generic plan (PostgreSQL's plan cache keeps it
 * when it costs no more than the custom plans). Since the due lane is read by a function
 * (migration 008), the group checks' subqueries, costed for each row the function may return,
 * made the generic plan look dearer, so every claim was planned again (about a millisecond
 * each): the statement for claims without a group limit has no group checks. Counted with
 * pg_prepared_statements on a pool of one connection, claiming 10 at a time from 2,000 jobs.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const CLAIMS = 12;
const JOBS = 2_000;

describe('plans of the claim statement (postgres)', () => {
  const ctx = usePostgres();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  it('runs a generic plan once warm, without a group limit', async () => {
    await ctx.queue().addJobs(Array.from({ length: JOBS }, (_, n) => ({ jobType: 'noop', payload: { n } })));
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    for (let i = 0; i < CLAIMS; i++) {
      expect(await backend.claimJobs({ workerId: 'w', batchSize: 10, now: new Date() })).toHaveLength(10);
    }
    const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%newly_due%'`,
    );
    await queue.close();
    expect(rows).toHaveLength(1);
    // PostgreSQL plans the first five executions for their values, then compares.
    expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
    expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(CLAIMS - 5);
  });
});
