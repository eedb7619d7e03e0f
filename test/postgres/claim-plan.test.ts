/**
 * Query plans on a large table (~200k jobs): the claim walks job_queue_due_idx, and no
 * statement on the processing path is costly enough for the planner to JIT-compile it, even on
 * a caller's pool whose sessions keep jit = on.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addJobsSql, addPlainJobsSql } from '../../src/backends/postgres/queries/jobs.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { cascadeLevelSql } from '../../src/backends/postgres/queries/cascade.js';
import { cancelJobsSql } from '../../src/backends/postgres/queries/manage.js';
import {
  claimJobsSql,
  claimWindow,
  completeJobsSql,
  failJobsFinalSql,
  failJobsForRetrySql,
  prolongJobSql,
} from '../../src/backends/postgres/queries/processing.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Function Name'?: string;
  'Total Cost': number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe('query plans on 200k jobs (postgres)', () => {
  // The 200k jobs are inserted once for the file.
  const ctx = usePostgres({ truncate: false });
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  let jitAboveCost: number;

  /** EXPLAIN (FORMAT JSON) with the parameters; the session keeps the server's jit setting. */
  async function explain(text: string, values: unknown[]): Promise<{ plan: PlanNode; jit: boolean }> {
    const { rows } = await ctx.sql.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const out = rows[0]['QUERY PLAN'][0];
    return { plan: out.Plan, jit: 'JIT' in out };
  }

  beforeAll(async () => {
    // 200k jobs: 60% pending (half of them due, spread over 10 priorities), the rest finished;
    // some grouped, tagged or with a prerequisite. Only the due ones enter the claim's index.
    await ctx.sql.query(
      `
      INSERT INTO ${ctx.table('job_queue')} (job_type, payload, status, priority, run_at, created_at, updated_at,
        tags, group_id, depends_on_job_ids)
      SELECT 'type' || (g % 5), '{}', CASE WHEN g % 10 < 6 THEN 'pending' ELSE 'completed' END, g % 10,
        $1::timestamptz + ((g % 2) * 2 - 1) * interval '1 hour', $1::timestamptz, $1::timestamptz,
        CASE WHEN g % 50 = 0 THEN ARRAY['batch:' || (g % 7)] ELSE '{}' END,
        CASE WHEN g % 3 = 0 THEN 'g' || (g % 20) END,
        CASE WHEN g % 97 = 0 THEN ARRAY[(g - 1)::bigint] END
      FROM generate_series(1, 200000) g`,
      [NOW],
    );
    await ctx.sql.query(`VACUUM ANALYZE ${ctx.table('job_queue')}`);
    jitAboveCost = Number((await ctx.sql.query('SHOW jit_above_cost')).rows[0].jit_above_cost);
  }, 120_000);

  /**
   * The plans of the statements that the functions called by `text` run (auto_explain's nested
   * statements, sent to this session as LOG notices), executed in a transaction rolled back.
   */
  async function innerPlans(text: string, values: unknown[]): Promise<PlanNode[]> {
    const client = await ctx.sql.connect();
    const plans: PlanNode[] = [];
    const onNotice = (n: { message?: string }) => {
      const json = n.message?.slice(n.message.indexOf('{'));
      if (json?.startsWith('{')) plans.push((JSON.parse(json) as { Plan: PlanNode }).Plan);
    };
    try {
      await client.query(`LOAD 'auto_explain'`);
      await client.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
        SET auto_explain.log_format = json; SET client_min_messages = log`);
      client.on('notice', onNotice);
      await client.query('BEGIN');
      await client.query(text, values);
      await client.query('ROLLBACK');
      return plans;
    } finally {
      client.off('notice', onNotice);
      await client.query('RESET client_min_messages; RESET auto_explain.log_min_duration');
      client.release();
    }
  }

  it('claims through an index scan of job_queue_due_idx, without JIT', async () => {
    const t = schemaNames(ctx.schema);
    for (const [batchSize, groupConcurrency] of [
      [10, null],
      [100, null],
      [10, 2],
    ] as const) {
      const text = claimJobsSql(t, { grouped: groupConcurrency !== null });
      const values = [NOW, 'w', batchSize, null, groupConcurrency, claimWindow(batchSize)];
      const { plan, jit } = await explain(text, values);
      // The due lane is read by job_queue_due_head (migration 008), whose query walks the index.
      expect(nodes(plan).filter((n) => n['Function Name'] === 'job_queue_due_head')).toHaveLength(1);
      const scans = (await innerPlans(text, values))
        .flatMap(nodes)
        .filter((n) => n['Node Type'].includes('Scan') && n['Index Name'] === 'job_queue_due_idx');
      expect(scans, `batch ${batchSize}`).toHaveLength(1);
      expect(
        nodes(plan).some((n) => n['Node Type'] === 'Seq Scan'),
        `batch ${batchSize}`,
      ).toBe(false);
      expect(jit).toBe(false);
      expect(plan['Total Cost']).toBeLessThan(jitAboveCost);
    }
  });

  it('claims the highest priority due jobs, oldest first', async () => {
    const claimed = await backendOf(ctx.queue()).claimJobs({
      workerId: 'w',
      batchSize: 5,
      jobTypes: ['type2'],
      now: NOW,
    });
    expect(claimed).toHaveLength(5);
    // Pending type2 jobs are those with g % 10 = 2: priority 2, due (g even: run_at an hour ago).
    expect(claimed.every((j) => j.priority === 2 && j.runAt < NOW && j.status === 'processing')).toBe(true);
    const ids = claimed.map((j) => j.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('keeps the other statements of the processing path below jit_above_cost', async () => {
    const t = schemaNames(ctx.schema);
    const iso = NOW.toISOString();
    const cancel = cancelJobsSql(t, { jobId: 5 }, NOW);
    const failure = { job_id: 5, worker_id: 'w', message: 'boom', reason: 'handler_error', stack: 'Error: boom' };
    const statements: [string, string, unknown[]][] = [
      [
        'addJobs',
        addJobsSql(t, { traced: false }),
        [JSON.stringify([{ job_type: 'a', payload: {}, run_at: iso, depends_on_job_ids: [7] }]), NOW, 'c'],
      ],
      [
        'addJobs (plain)',
        addPlainJobsSql(t, { traced: false }),
        [JSON.stringify([{ job_type: 'a', payload: {} }]), NOW, 'c'],
      ],
      [
        'completeJobs',
        completeJobsSql(t),
        [JSON.stringify([{ job_id: 5, worker_id: 'w', has_output: false, output: null }]), NOW, 'c'],
      ],
      ['failJobs (retry)', failJobsForRetrySql(t), [JSON.stringify([{ ...failure, retry_at: iso }]), NOW, iso, 'c']],
      ['failJobs (final)', failJobsFinalSql(t), [JSON.stringify([{ ...failure, retry_at: null }]), NOW, iso, 'c']],
      ['cascade', cascadeLevelSql(t), [[5, 6], NOW]],
      ['cancelJob', cancel.text, cancel.values],
      ['prolongJob', prolongJobSql(t), [5, 'w', NOW, 1000]],
    ];
    for (const [name, text, values] of statements) {
      const { plan, jit } = await explain(text, values);
      expect(jit, name).toBe(false);
      expect(plan['Total Cost'], name).toBeLessThan(jitAboveCost);
    }
  });
});
