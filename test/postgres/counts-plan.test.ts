/**
 * The cost of getJobCounts follows its limit, not the number of jobs stored (migration 012):
 * each status is an ordered walk of job_queue_status_idx that stops at the limit. Measured as
 * the buffers of EXPLAIN (ANALYZE, BUFFERS) at 1,000 and at 200,000 jobs, with a status whose
 * jobs are all among the oldest (the walk of the primary key that the planner chose for the
 * inline statement read the whole table for it), before and after ANALYZE.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { countPerStatusSql } from '../../src/backends/postgres/queries/overview.js';
import { usePostgres } from './support.js';

const LIMIT = 50;
const NOW = new Date('2030-01-01T00:00:00.000Z');

describe('job counts cost (postgres)', () => {
  const ctx = usePostgres({ schemas: 1, truncate: false });
  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;

  /** 100 waiting jobs first (the oldest), then `others` jobs of the other statuses, 20 types. */
  async function fill(schema: string, others: number): Promise<void> {
    const insert = (status: string, count: number) =>
      ctx.sql.query(
        `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at)
         SELECT 'type-' || (g % 20), '{}', ${status}, $1, $1, $1 FROM generate_series(1, $2::integer) g`,
        [NOW, count],
      );
    await insert(`'waiting'`, 100);
    await insert(`(ARRAY['pending', 'processing', 'completed', 'failed', 'cancelled'])[g % 5 + 1]`, others);
  }

  async function buffers(schema: string): Promise<number> {
    const { rows } = await ctx.sql.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${countPerStatusSql(schemaNames(schema))}`,
      [LIMIT],
    );
    const plan = rows[0]['QUERY PLAN'][0].Plan as { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  }

  beforeAll(async () => {
    await fill(small(), 1_000);
    await fill(large(), 200_000);
  }, 180_000);

  async function expectFlat(): Promise<void> {
    const [atSmall, atLarge] = [await buffers(small()), await buffers(large())];
    // A deeper index at 200k costs a few more pages per walk; reading the table would be thousands.
    expect(atLarge, `buffers ${JSON.stringify({ atSmall, atLarge })}`).toBeLessThanOrEqual(2 * atSmall + 50);
  }

  it('reads as much at 200,000 jobs as at 1,000, before ANALYZE', async () => {
    await expectFlat();
  });

  it('reads as much at 200,000 jobs as at 1,000, after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
    await expectFlat();
  });

  it('counts the newest jobs of each status', async () => {
    const { rows } = await ctx.sql.query(countPerStatusSql(schemaNames(large())), [LIMIT]);
    const perStatus = new Map<string, number>();
    for (const r of rows) perStatus.set(r.status, (perStatus.get(r.status) ?? 0) + Number(r.n));
    expect(Object.fromEntries(perStatus)).toEqual({
      pending: LIMIT,
      processing: LIMIT,
      completed: LIMIT,
      failed: LIMIT,
      cancelled: LIMIT,
      waiting: LIMIT,
    });
  });
});
