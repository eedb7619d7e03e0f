/**
 * The cost of one claim does not grow with the due jobs it cannot take (migration 006): jobs
 * waiting for a prerequisite (dependsOn.jobIds), behind a tag barrier (dependsOn.tags) or in a
 * full group (groupConcurrency). Measured as buffers and filtered rows of EXPLAIN (ANALYZE,
 * BUFFERS) at 1,000 and at 200,000 such jobs, all ahead of the claimable ones in claim order:
 * first while they are still in the due lane (the claim examines a bounded window of them and
 * parks it), then once they are parked. And the claimable jobs behind them are claimed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { claimJobsSql, claimWindow } from '../../src/backends/postgres/queries/processing.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

interface Cost {
  buffers: number;
  removed: number;
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const DUE = 30;
const GROUP_LIMIT = 1;

describe('claim cost with blocked due jobs (postgres)', () => {
  // A database of its own: the VACUUM below must not be held back by other files' transactions.
  const ctx = usePostgres({ schemas: 1, truncate: false, ownDatabase: true });

  /**
   * Three blockers: a pending job scheduled tomorrow (the prerequisite), a processing job
   * carrying tag `barrier`, a processing job of group `full`. Then `blocked` due jobs at
   * priority 5, each held back by one of them: depending on the prerequisite, listing
   * dependsOn.tags ['barrier'], or in group `full`. Then DUE plain due jobs at priority 0.
   */
  async function fill(schema: string, blocked: number): Promise<void> {
    const hourAgo = new Date(NOW.getTime() - 3_600_000);
    const { rows } = await ctx.sql.query<{ id: string }>(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at, tags, group_id,
         locked_at, locked_by)
       VALUES ('prerequisite', '{}', 'pending', $1::timestamptz + interval '1 day', $1, $1, '{}', NULL, NULL, NULL),
              ('holder', '{}', 'processing', $1, $1, $1, '{barrier}', NULL, $1, 'other'),
              ('member', '{}', 'processing', $1, $1, $1, '{}', 'full', $1, 'other')
       RETURNING id`,
      [hourAgo],
    );
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, priority, run_at, created_at, updated_at,
         depends_on_job_ids, depends_on_tags, group_id)
       SELECT 'blocked', '{}', 5, $1, $1, $1,
         CASE WHEN g % 3 = 0 THEN ARRAY[$2::bigint] END,
         CASE WHEN g % 3 = 1 THEN ARRAY['barrier'] END,
         CASE WHEN g % 3 = 2 THEN 'full' END
       FROM generate_series(1, $3::integer) g`,
      [hourAgo, rows[0]!.id, blocked],
    );
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, priority, run_at, created_at, updated_at)
       SELECT 'plain', '{}', 0, $1, $2, $2 FROM generate_series(1, ${String(DUE)})`,
      [hourAgo, NOW],
    );
  }

  /**
   * One claim of 10 (its first round), measured; rolled back unless `keep`. With the plan a
   * processor runs it with under a group limit: the statement prepared, and its generic plan.
   */
  async function claimCost(schema: string, keep = false): Promise<Cost> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      const text = claimJobsSql(schemaNames(schema), { grouped: true });
      await client.query(`PREPARE grouped_claim (timestamptz, text, integer, text[], integer, integer) AS ${text}`);
      // EXECUTE takes its arguments as literals: these are the test's own constants.
      const { rows } = await client.query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE grouped_claim ('${NOW.toISOString()}', 'w', 10, NULL,
           ${String(GROUP_LIMIT)}, ${String(claimWindow(10))})`,
      );
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      return {
        buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
        removed: nodes(plan).reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0), 0),
      };
    } finally {
      await client.query(keep ? 'COMMIT' : 'ROLLBACK');
      await client.query('DEALLOCATE grouped_claim');
      client.release();
    }
  }

  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;

  beforeAll(async () => {
    await fill(small(), 1_000);
    await fill(large(), 200_000);
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
  }, 180_000);

  function expectFlat(label: string, atSmall: Cost, atLarge: Cost): void {
    // A deeper index at 200k costs a few more pages per probe; walking the blocked jobs, as the
    // claim did before migration 006, read tens of thousands.
    expect(atLarge.buffers, `${label}: buffers ${JSON.stringify({ atSmall, atLarge })}`).toBeLessThanOrEqual(
      2 * atSmall.buffers + 100,
    );
    expect(atLarge.removed, `${label}: rows removed by filter`).toBeLessThanOrEqual(atSmall.removed + 10);
  }

  it('reads as much with 200,000 blocked due jobs ahead as with 1,000, while they are in the due lane', async () => {
    expectFlat('unparked', await claimCost(small()), await claimCost(large()));
  });

  it('claims the plain jobs behind 200,000 blocked ones, and then reads as much as at 1,000', async () => {
    const claimAll = async (schema: string) =>
      backendOf(ctx.queue({ schema })).claimJobs({
        workerId: 'w',
        batchSize: 10,
        groupConcurrency: GROUP_LIMIT,
        now: NOW,
      });
    for (const schema of [small(), large()]) {
      const claimed = await claimAll(schema);
      expect(claimed.map((j) => j.jobType)).toEqual(Array<string>(10).fill('plain'));
    }
    const { rows } = await ctx.sql.query(
      `SELECT parked_reason, count(*)::int AS n FROM "${large()}".job_queue WHERE parked GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { parked_reason: 'group_full', n: 66_667 },
      { parked_reason: 'prerequisites', n: 66_666 },
      { parked_reason: 'tag_barrier', n: 66_667 },
    ]);
    // The due lane's index still points at the old versions of the parked rows until VACUUM
    // (autovacuum in a live database) removes them.
    await ctx.sql.query(`VACUUM "${small()}".job_queue`);
    await ctx.sql.query(`VACUUM "${large()}".job_queue`);
    expectFlat('parked', await claimCost(small()), await claimCost(large()));
  }, 120_000);
});
