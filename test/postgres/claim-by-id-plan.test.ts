/**
 * The claim by id of the job a wake-up announced (queries/processing.ts, claimJobByIdSql) reads
 * the same rows whatever the number of other jobs: measured as the rows every plan node produced
 * or discarded, times its loops, from EXPLAIN ANALYZE of the generic plan (as the prepared
 * statement runs it), at 1,000 and at 50,000 future jobs and as many due jobs of lower priority,
 * right after a bulk insert (statistics taken when the table was small) and after ANALYZE.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { claimJobByIdSql } from '../../src/backends/postgres/queries/processing.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function rowWork(plan: PlanNode): number {
  const own =
    plan['Actual Loops'] *
    (plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0) + (plan['Rows Removed by Index Recheck'] ?? 0));
  return own + (plan.Plans ?? []).reduce((sum, p) => sum + rowWork(p), 0);
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const DAY_AHEAD = new Date('2030-01-02T00:00:00.000Z');
const EARLIER = new Date('2029-12-31T00:00:00.000Z');

describe('claim by id with many other jobs (postgres)', () => {
  const ctx = usePostgres({ schemas: 1, truncate: false });

  /** `others` future jobs and `others` due ones of priority 0, then the announced job (priority 5). */
  async function fill(schema: string, others: number): Promise<string> {
    const jobs = `"${schema}".job_queue`;
    await ctx.sql.query(`ANALYZE ${jobs}`); // statistics of an empty table
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, run_at, created_at, updated_at)
       SELECT 't', '{}', CASE WHEN g % 2 = 0 THEN $1::timestamptz ELSE $2::timestamptz END, $2::timestamptz, $2::timestamptz
       FROM generate_series(1, $3::integer) g`,
      [DAY_AHEAD, EARLIER, 2 * others],
    );
    const { rows } = await ctx.sql.query<{ id: string }>(
      `INSERT INTO ${jobs} (job_type, payload, priority, run_at, created_at, updated_at)
       VALUES ('t', '{}', 5, $1, $1, $1) RETURNING id`,
      [NOW],
    );
    return rows[0]!.id;
  }

  async function work(schema: string, id: string): Promise<{ work: number; claimed: number }> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await client.query(
        `PREPARE by_id_probe(timestamptz, text, bigint, text[], integer) AS ${claimJobByIdSql(schemaNames(schema))}`,
      );
      const { rows } = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE by_id_probe('${NOW.toISOString()}', 'w', ${id}, NULL, NULL)`,
      );
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      const { rows: claimed } = await client.query(
        `SELECT count(*)::int AS n FROM "${schema}".job_queue WHERE locked_by = 'w'`,
      );
      return { work: rowWork(plan), claimed: (claimed[0] as { n: number }).n };
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL');
      client.release();
    }
  }

  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;
  const ids = { small: '', large: '' };

  beforeAll(async () => {
    ids.small = await fill(small(), 1_000);
    ids.large = await fill(large(), 50_000);
  }, 120_000);

  it('claims the announced job reading as many rows at 50,000 other jobs as at 1,000, before and after ANALYZE', async () => {
    const stale = { small: await work(small(), ids.small), large: await work(large(), ids.large) };
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
    const fresh = { small: await work(small(), ids.small), large: await work(large(), ids.large) };
    const all = JSON.stringify({ stale, fresh });
    for (const run of [stale, fresh]) {
      expect(run.small.claimed, all).toBe(1);
      expect(run.large.claimed, all).toBe(1);
      expect(run.large.work, all).toBeLessThanOrEqual(run.small.work + 10);
      expect(run.large.work, all).toBeLessThanOrEqual(50);
    }
  });
});
