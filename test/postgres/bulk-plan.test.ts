/**
 * Bulk operations (cancel with its cascade and the hint it asks first, edit, cleanup, reclaim)
 * cost work linear in the jobs they touch, with stale statistics (right after a bulk insert,
 * before autovacuum's ANALYZE) and with fresh ones. Measured as the rows every plan node
 * produced or threw away (by filter, join filter or recheck), times its loops, from EXPLAIN
 * (ANALYZE, BUFFERS): a nested loop of cancelled x pending jobs shows up as N x dependents rows
 * removed by join filter. And the hint and the cascade read the index of prerequisites with a
 * bounded number of ids per scan, which no row count shows (see expectLinear).
 */
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_LOOKUPS } from '../../src/backends/postgres/index-walk.js';
import { cascadeHintSql, cascadeLevelSql } from '../../src/backends/postgres/queries/cascade.js';
import { cleanupEventsSql } from '../../src/backends/postgres/queries/events.js';
import { cancelJobsSql, cleanupJobsSql, editJobsSql, reclaimSql } from '../../src/backends/postgres/queries/manage.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { nodes, plansWithNested, rowWork, type PlanNode } from './plans.js';
import { usePostgres } from './support.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const OLD = new Date('2029-01-01T00:00:00.000Z');
/** Tagged pending jobs, as many finished ones with an event each, and as many stuck processing. */
const N = 50_000;
/** Pending jobs depending on the first tagged jobs by id, and on the tag (barrier). */
const DEPENDENTS = 300;
/** Jobs in the table: the tagged, finished and stuck ones, and the dependents. */
const STORED = 3 * N + DEPENDENTS;
/**
 * Work allowed per job stored: a linear plan does a small constant amount of it (a reclaim of
 * 50,000 stuck jobs, with its dead letters and events, about 11); the old cascade, a nested
 * loop of cancelled x pending jobs, did about 250.
 */
const PER_JOB = 20;

/** Jobs in one batch of the cleanup (its default batch size). */
const BATCH = 1000;

type Work = Record<
  | 'cancel'
  | 'cascadeHint'
  | 'cascade'
  | 'idsPerDependentsScan'
  | 'edit'
  | 'cleanupJobs'
  | 'cleanupEvents'
  | 'reclaim'
  | 'cleanupBatch',
  number
>;

/** The ids each scan of the index of prerequisites took: `ids` over the fewest loops of one. */
function idsPerDependentsScan(plans: PlanNode[], ids: number): number {
  const scans = plans.flatMap(nodes).filter((n) => n['Index Name'] === 'job_queue_depends_on_job_ids_idx');
  expect(scans.length, 'scans of the index of prerequisites').toBeGreaterThan(0);
  return ids / Math.min(...scans.map((n) => n['Actual Loops']));
}

describe('bulk operation plans (postgres)', () => {
  const ctx = usePostgres({ truncate: false });
  const bulk = { filter: { tags: { values: ['bulk'], mode: 'all' as const } } };

  async function fill(): Promise<void> {
    const jobs = ctx.table('job_queue');
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, tags, run_at, created_at, updated_at)
       SELECT 'bulk', '{}', ARRAY['bulk'], $1::timestamptz, $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer)`,
      [NOW, N],
    );
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, depends_on_job_ids, depends_on_tags, status, run_at, created_at, updated_at)
       SELECT 'dependent', '{}', CASE WHEN g % 2 = 0 THEN ARRAY[g::bigint] END,
         CASE WHEN g % 2 = 1 THEN ARRAY['bulk'] END, 'pending', $1::timestamptz, $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [NOW, DEPENDENTS],
    );
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, status, run_at, created_at, updated_at)
       SELECT 'done', '{}', 'completed', $1::timestamptz, $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer)`,
      [OLD, N],
    );
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, status, attempts, max_attempts, dead_letter_job_type, locked_at,
         locked_by, run_at, created_at, updated_at)
       SELECT 'stuck', '{}', 'processing', g % 2 + 1, 2, 'dl', $1::timestamptz, 'w', $1::timestamptz, $1::timestamptz,
         $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [OLD, N],
    );
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_events')} (job_id, event_type, created_at)
       SELECT id, 'completed', $1::timestamptz FROM ${jobs} WHERE status = 'completed'`,
      [OLD],
    );
    // Recent events of the tagged jobs, whose ids come before the finished ones: a batch of the
    // cleanup must not read them.
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_events')} (job_id, event_type, created_at)
       SELECT id, 'added', $1::timestamptz FROM ${jobs} WHERE job_type = 'bulk'`,
      [NOW],
    );
  }

  /** The ids of the jobs matching `condition`, oldest first. */
  async function ids(condition: string, on: pg.ClientBase = ctx.sql as unknown as pg.ClientBase): Promise<number[]> {
    const { rows } = await on.query<{ id: string }>(
      `SELECT id FROM ${ctx.table('job_queue')} WHERE ${condition} ORDER BY id`,
    );
    return rows.map((r) => Number(r.id));
  }

  /** Runs each operation's statements under EXPLAIN ANALYZE in one transaction, rolled back. */
  async function measure(): Promise<Work> {
    const t = schemaNames(ctx.schema);
    const client = await ctx.sql.connect();
    const explain = async (text: string, values: unknown[]): Promise<PlanNode> => {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      return (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    };
    // The cleanups call functions (migration 007): their statements' plans count too.
    const nestedWork = async (text: string, values: unknown[]): Promise<number> =>
      (await plansWithNested(client, text, values)).reduce((sum, plan) => sum + rowWork(plan), 0);
    try {
      // All the tagged jobs as one batch (a bulk action takes bulkBatch.size at a time), so the
      // statement's work shows against the whole table.
      const tagged = await ids(`job_type = 'bulk'`);
      const batch = { batch: tagged, status: 'pending' as const, ...bulk };
      await client.query(`BEGIN; ${ID_LOOKUPS}`);
      const cancel = cancelJobsSql(t, batch, NOW);
      const cancelPlan = await explain(cancel.text, cancel.values);
      expect(await ids(`status = 'cancelled'`, client)).toHaveLength(N);
      // The hint the cascade asks first (migrations 017, 019), and its statements inside the
      // function; again for the finished jobs, which have no dependent, so it reads every slice.
      const hintPlans = await plansWithNested(client, cascadeHintSql(t), [tagged]);
      const finished = await ids(`status = 'completed'`);
      const quietHintPlans = await plansWithNested(client, cascadeHintSql(t), [finished]);
      const cascadePlan = await explain(cascadeLevelSql(t), [tagged, NOW]);
      await client.query('ROLLBACK');

      await client.query(`BEGIN; ${ID_LOOKUPS}`);
      const edit = editJobsSql(t, batch, { priority: 5 }, NOW);
      const editPlan = await explain(edit.text, edit.values);
      const cleanupJobs = await nestedWork(cleanupJobsSql(t), [NOW, N]);
      await client.query('ROLLBACK');

      await client.query('BEGIN');
      const cleanupEvents = await nestedWork(cleanupEventsSql(t), [NOW, N]);
      await client.query('ROLLBACK');

      // One batch of the cleanup as it runs (the default batch size): its work follows the batch.
      await client.query('BEGIN');
      const cleanupBatch = await nestedWork(cleanupJobsSql(t), [NOW, BATCH]);
      await client.query('ROLLBACK');

      // Half the stuck jobs have an attempt left; the others fail and get a dead-letter job.
      await client.query('BEGIN');
      const reclaimPlan = await explain(reclaimSql(t), [NOW, 1000, NOW.toISOString(), t.channel]);
      await client.query('ROLLBACK');
      return {
        cancel: rowWork(cancelPlan),
        cascadeHint: [...hintPlans, ...quietHintPlans].reduce((sum, plan) => sum + rowWork(plan), 0),
        cascade: rowWork(cascadePlan),
        idsPerDependentsScan: Math.max(
          idsPerDependentsScan(quietHintPlans, finished.length),
          idsPerDependentsScan([cascadePlan], tagged.length),
        ),
        edit: rowWork(editPlan),
        cleanupJobs,
        cleanupEvents,
        reclaim: rowWork(reclaimPlan),
        cleanupBatch,
      };
    } finally {
      client.release();
    }
  }

  function expectLinear(work: Work): void {
    const { cleanupBatch, idsPerDependentsScan, ...wholeTable } = work;
    // Work no plan node shows as rows: a GIN scan compares each id of its query with every one
    // before it (to merge duplicates) before it reads the index, so one scan with every id cost
    // the square of their number (13 s of CPU at 100,000 ids, with no dependent anywhere). The
    // hint and the cascade scan the index of prerequisites in slices of ids: a bounded number
    // per scan keeps them linear in the ids they get.
    expect(idsPerDependentsScan, 'ids per scan of the index of prerequisites').toBeLessThanOrEqual(100);
    for (const [operation, rows] of Object.entries(wholeTable)) {
      expect(rows, `${operation}: rows of work ${JSON.stringify(work)}`).toBeLessThanOrEqual(PER_JOB * STORED);
    }
    // A batch of 1,000 among 50,000 finished jobs and 100,000 events: work in the batch. Before
    // ANALYZE the events delete used to merge the batch with the events primary key from its
    // start, and the batch was picked from a bitmap of every finished job.
    expect(cleanupBatch, `cleanup batch: rows of work ${JSON.stringify(work)}`).toBeLessThanOrEqual(PER_JOB * BATCH);
  }

  let stale: Work;

  beforeAll(async () => {
    await fill();
    // Right after the bulk insert: before autovacuum's ANALYZE has run.
    stale = await measure();
  }, 180_000);

  it('cancel, cascade, edit, cleanup and reclaim stay linear before ANALYZE', () => {
    expectLinear(stale);
  });

  it('cancel, cascade, edit, cleanup and reclaim stay linear after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE ${ctx.table('job_queue')}`);
    await ctx.sql.query(`ANALYZE ${ctx.table('job_events')}`);
    expectLinear(await measure());
  }, 180_000);
});
