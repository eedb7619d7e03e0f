/**
 * A claim's plan does not depend on the table's statistics (migration 008). A table of a few
 * thousand jobs, most of all right after they were added (no ANALYZE yet), looked small enough
 * to the planner for sequential scans and sorts of the whole table, five per claim: the cost of
 * a claim then grew with every finished job. Now both lanes are read through their indexes and
 * the claimed rows are locked and updated by address. Checked on EXPLAIN (ANALYZE) of one claim
 * of 10, right after the insert, with 200 and with 6,000 finished jobs beside 2,000 due ones.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { claimJobsSql, claimWindow } from '../../src/backends/postgres/queries/processing.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const DUE = 2_000;
const FINISHED = 6_000;

describe('claim plan on a small table without statistics (postgres)', () => {
  const ctx = usePostgres({ schemas: 1, truncate: false });
  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;

  /** `finished` completed jobs, then DUE due ones; no ANALYZE. */
  async function fill(schema: string, finished: number): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at)
       SELECT 'noop', '{}', 'completed', $1::timestamptz - interval '2 hours', $1::timestamptz - interval '2 hours',
         $1::timestamptz - interval '2 hours'
       FROM generate_series(1, $2::integer)`,
      [NOW, finished],
    );
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at)
       SELECT 'noop', '{}', $1::timestamptz - interval '1 hour', $1::timestamptz - interval '1 hour',
         $1::timestamptz - interval '1 hour'
       FROM generate_series(1, ${String(DUE)})`,
      [NOW],
    );
  }

  /** One claim of 10, explained and rolled back. */
  async function claimPlan(schema: string): Promise<PlanNode> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      const text = claimJobsSql(schemaNames(schema), { grouped: false });
      const values = [NOW, 'w', 10, null, null, claimWindow(10)];
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      return rows[0]['QUERY PLAN'][0].Plan as PlanNode;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  let atSmall: PlanNode;
  let atLarge: PlanNode;
  beforeAll(async () => {
    await fill(small(), 200);
    await fill(large(), FINISHED);
    atSmall = await claimPlan(small());
    atLarge = await claimPlan(large());
  }, 120_000);

  it('scans no table, with 200 or 6,000 finished jobs', () => {
    for (const plan of [atSmall, atLarge]) {
      const scans = nodes(plan).filter((n) => n['Node Type'] === 'Seq Scan' && n['Actual Loops'] > 0);
      expect(scans.map((n) => n['Relation Name'])).toEqual([]);
    }
  });
});
