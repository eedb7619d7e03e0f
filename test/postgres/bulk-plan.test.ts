/**
 * Bulk operations (cancel with its cascade, edit, cleanup, reclaim) cost work linear in the jobs they
 * touch, with stale statistics (right after a bulk insert, before autovacuum's ANALYZE) and with
 * fresh ones. Measured as the rows every plan node produced or threw away (by filter, join
 * filter or recheck), times its loops, from EXPLAIN (ANALYZE, BUFFERS): a nested loop of
 * cancelled x pending jobs shows up as N x dependents rows removed by join filter.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cascadeLevelSql } from '../../src/backends/postgres/queries/cascade.js';
import { cleanupEventsSql } from '../../src/backends/postgres/queries/events.js';
import { cancelJobsSql, cleanupJobsSql, editJobsSql, reclaimSql } from '../../src/backends/postgres/queries/manage.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Rows produced or discarded by every node, over all its loops. */
function rowWork(plan: PlanNode): number {
  return nodes(plan).reduce(
    (sum, n) =>
      sum +
      n['Actual Loops'] *
        (n['Actual Rows'] +
          (n['Rows Removed by Filter'] ?? 0) +
          (n['Rows Removed by Join Filter'] ?? 0) +
          (n['Rows Removed by Index Recheck'] ?? 0)),
    0,
  );
}

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

type Work = Record<'cancel' | 'cascade' | 'edit' | 'cleanupJobs' | 'cleanupEvents' | 'reclaim', number>;

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
  }

  /** Runs each operation's statements under EXPLAIN ANALYZE in one transaction, rolled back. */
  async function measure(): Promise<Work> {
    const t = schemaNames(ctx.schema);
    const client = await ctx.sql.connect();
    const explain = async (text: string, values: unknown[]): Promise<PlanNode> => {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      return (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    };
    try {
      await client.query('BEGIN');
      const cancel = cancelJobsSql(t, bulk, NOW);
      const cancelPlan = await explain(cancel.text, cancel.values);
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM ${ctx.table('job_queue')} WHERE status = 'cancelled'`,
      );
      expect(rows).toHaveLength(N);
      const cascadePlan = await explain(cascadeLevelSql(t), [rows.map((r) => r.id), NOW]);
      await client.query('ROLLBACK');

      await client.query('BEGIN');
      const edit = editJobsSql(t, bulk, { priority: 5 }, NOW);
      const editPlan = await explain(edit.text, edit.values);
      const cleanupJobsPlan = await explain(cleanupJobsSql(t), [NOW, N]);
      await client.query('ROLLBACK');

      await client.query('BEGIN');
      const cleanupEventsPlan = await explain(cleanupEventsSql(t), [NOW, N]);
      await client.query('ROLLBACK');

      // Half the stuck jobs have an attempt left; the others fail and get a dead-letter job.
      await client.query('BEGIN');
      const reclaimPlan = await explain(reclaimSql(t), [NOW, 1000, NOW.toISOString(), t.channel]);
      await client.query('ROLLBACK');
      return {
        cancel: rowWork(cancelPlan),
        cascade: rowWork(cascadePlan),
        edit: rowWork(editPlan),
        cleanupJobs: rowWork(cleanupJobsPlan),
        cleanupEvents: rowWork(cleanupEventsPlan),
        reclaim: rowWork(reclaimPlan),
      };
    } finally {
      client.release();
    }
  }

  function expectLinear(work: Work): void {
    for (const [operation, rows] of Object.entries(work)) {
      expect(rows, `${operation}: rows of work ${JSON.stringify(work)}`).toBeLessThanOrEqual(PER_JOB * STORED);
    }
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
