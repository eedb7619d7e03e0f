/**
 * The cost of one claim does not grow with the jobs it does not return (migration 003): jobs
 * scheduled ahead, waiting, failed with a retry to come, finished, and, for a processor limited
 * to some types, due jobs of other types. Measured as buffers and filtered rows of EXPLAIN
 * (ANALYZE, BUFFERS) at 1,000 and at 200,000 such jobs, with fresh and with stale statistics.
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
const DUE = 50;

describe('claim cost with a backlog (postgres)', () => {
  const ctx = usePostgres({ schemas: 1, truncate: false });

  /**
   * `noise` jobs a claim must not return, all created before the due ones (so the old claim
   * index put them first): pending a day ahead (several priorities, some grouped, some with a
   * prerequisite), waiting, failed with a retry tomorrow, completed, and due jobs of type
   * `other`. Then DUE due jobs of type `wanted`, at priority 0: the old claim index put every
   * job of a higher priority, and every older one of priority 0, before them.
   */
  async function fill(schema: string, noise: number): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, priority, run_at, next_attempt_at, wait_until,
         created_at, updated_at, group_id, depends_on_job_ids)
       SELECT CASE WHEN g % 5 = 4 THEN 'other' ELSE 'wanted' END, '{}',
         (ARRAY['pending', 'waiting', 'failed', 'completed', 'pending'])[g % 5 + 1],
         CASE WHEN g % 5 = 4 THEN 0 ELSE g % 7 END,
         CASE WHEN g % 5 = 4 THEN $1::timestamptz - interval '1 hour' ELSE $1::timestamptz + interval '1 day' END,
         CASE WHEN g % 5 = 2 THEN $1::timestamptz + interval '1 day' END,
         CASE WHEN g % 5 = 1 THEN $1::timestamptz + interval '1 day' END,
         $1::timestamptz - interval '1 hour', $1::timestamptz - interval '1 hour',
         CASE WHEN g % 3 = 0 THEN 'g' || (g % 20) END,
         CASE WHEN g % 5 = 0 AND g % 2 = 0 THEN ARRAY[(g - 1)::bigint] END
       FROM generate_series(1, $2::integer) g`,
      [NOW, noise],
    );
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, priority, run_at, created_at, updated_at)
       SELECT 'wanted', '{}', 0, $1::timestamptz - interval '1 minute', $1::timestamptz, $1::timestamptz
       FROM generate_series(1, ${String(DUE)})`,
      [NOW],
    );
  }

  /** One claim of 10, measured and rolled back. */
  async function claimCost(schema: string, jobTypes: string[] | null): Promise<Cost> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      const text = claimJobsSql(schemaNames(schema), { grouped: false });
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, [
        NOW,
        'w',
        10,
        jobTypes,
        null,
        claimWindow(10),
      ]);
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      return {
        buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
        removed: nodes(plan).reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0), 0),
      };
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  async function costs(schema: string): Promise<{ any: Cost; typed: Cost }> {
    return { any: await claimCost(schema, null), typed: await claimCost(schema, ['wanted']) };
  }

  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;
  let stale: { small: { any: Cost; typed: Cost }; large: { any: Cost; typed: Cost } };

  beforeAll(async () => {
    await fill(small(), 1_000);
    await fill(large(), 200_000);
    // Right after the bulk insert: before autovacuum's ANALYZE has run.
    stale = { small: await costs(small()), large: await costs(large()) };
  }, 180_000);

  function expectFlat(label: string, atSmall: Cost, atLarge: Cost): void {
    // A deeper index at 200k costs a few more pages per probe; the old claim read ~19,000.
    expect(atLarge.buffers, `${label}: buffers ${JSON.stringify({ atSmall, atLarge })}`).toBeLessThanOrEqual(
      2 * atSmall.buffers + 50,
    );
    expect(atLarge.removed, `${label}: rows removed by filter`).toBeLessThanOrEqual(atSmall.removed + 10);
  }

  it('reads as much with 200,000 jobs not due as with 1,000, before ANALYZE', () => {
    expectFlat('any type', stale.small.any, stale.large.any);
    expectFlat('one type', stale.small.typed, stale.large.typed);
  });

  it('reads as much with 200,000 jobs not due as with 1,000, after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
    const [atSmall, atLarge] = [await costs(small()), await costs(large())];
    expectFlat('any type', atSmall.any, atLarge.any);
    expectFlat('one type', atSmall.typed, atLarge.typed);
  });

  it('claims the due jobs of the wanted type past 40,000 due jobs of another type', async () => {
    const claimed = await backendOf(ctx.queue({ schema: large() })).claimJobs({
      workerId: 'w',
      batchSize: 10,
      jobTypes: ['wanted'],
      now: NOW,
    });
    expect(claimed.map((j) => j.jobType)).toEqual(Array<string>(10).fill('wanted'));
    expect(claimed.every((j) => j.runAt < NOW)).toBe(true);
  });
});
