/**
 * Reading and cleaning up the event history costs work linear in the events touched, not in the
 * events stored: a job's history is read through the primary key (job_id, id), and the cleanup
 * by age walks only the old events, with stale statistics (right after a bulk insert) and fresh
 * ones. Measured as the rows every plan node produced or threw away, times its loops, from
 * EXPLAIN (ANALYZE).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupAddedEventsSql, cleanupEventsSql, jobEventsSql } from '../../src/backends/postgres/queries/events.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { usePostgres } from './support.js';
import { nodes, rowWork, type PlanNode } from './plans.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const OLD = new Date('2029-01-01T00:00:00.000Z');
/** Recent events: 4 for each of 25,000 jobs. */
const RECENT = 100_000;
/** Old events, the ones a cleanup deletes, stored first (events are written in time order). */
const OLD_EVENTS = 500;
/** Jobs keeping their `added` event in their row (migration 013): old ones first, then recent ones (ids in time order, as adds draw them). */
const OLD_IN_ROW = 500;
const RECENT_IN_ROW = 25_000;

describe('event history plans (postgres)', () => {
  const ctx = usePostgres({ truncate: false });

  beforeAll(async () => {
    const events = ctx.table('job_events');
    await ctx.sql.query(
      `INSERT INTO ${events} (job_id, event_type, created_at)
       SELECT g, 'completed', $1::timestamptz FROM generate_series(1, $2::integer) g`,
      [OLD, OLD_EVENTS],
    );
    await ctx.sql.query(
      `INSERT INTO ${events} (job_id, event_type, created_at)
       SELECT g / 4 + 1, 'added', $1::timestamptz FROM generate_series(0, $2::integer - 1) g`,
      [NOW, RECENT],
    );
    const t = schemaNames(ctx.schema);
    for (const [at, count] of [
      [OLD, OLD_IN_ROW],
      [NOW, RECENT_IN_ROW],
    ] as const) {
      await ctx.sql.query(
        `INSERT INTO ${ctx.table('job_queue')} (job_type, payload, run_at, created_at, updated_at, added_event_id)
         SELECT 'x', '{}', $1::timestamptz, $1::timestamptz, $1::timestamptz, nextval('${t.eventIdSeq}'::regclass)
         FROM generate_series(1, $2::integer)`,
        [at, count],
      );
    }
  }, 60_000);

  /** The plan of `text`; `off` names planner settings turned off for it, as a function's SET does. */
  async function explain(text: string, values: unknown[], off: string[] = []): Promise<PlanNode> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      for (const setting of off) await client.query(`SET LOCAL ${setting} = off`);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      await client.query('ROLLBACK');
      return (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    } finally {
      client.release();
    }
  }

  async function expectLinear(): Promise<void> {
    const t = schemaNames(ctx.schema);
    // Job 7 has one old event and four recent ones.
    // Job 7 also keeps its `added` event in its row, read through the job's primary key (its
    // six events, and the job's type for each `added` one: a few rows each).
    const history = await explain(jobEventsSql(t), [7]);
    expect(rowWork(history)).toBeLessThanOrEqual(40);
    expect(nodes(history).map((n) => n['Index Name'])).toEqual(
      expect.arrayContaining(['job_events_pkey', 'job_queue_pkey']),
    );
    // Deletes the 500 old events, and reads next to none of the 100,000 recent ones.
    const cleanup = await explain(cleanupEventsSql(t), [new Date(OLD.getTime() + 1000), 10_000]);
    expect(rowWork(cleanup)).toBeLessThanOrEqual(10 * OLD_EVENTS);
    // Removes the 500 old `added` events kept in rows by raising the floor past them, and reads
    // next to none of the 25,000 recent ones (migration 014): the function walks the primary key
    // from the floor and stops at the first recent job. Counted in the buffers its call touched
    // (a function scan's count includes the statements the function runs), after a first call
    // that walks nothing has loaded the function; rolled back, so every run starts from floor 0.
    const cutoff = new Date(OLD.getTime() + 1000);
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(cleanupAddedEventsSql(t), [new Date(0), 10_000]);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${cleanupAddedEventsSql(t)}`, [
        cutoff,
        10_000,
      ]);
      const call = (rows[0] as { 'QUERY PLAN': { Plan: Record<string, number> }[] })['QUERY PLAN'][0]!.Plan;
      // The 500 old jobs fill about 10 pages of job_queue; the whole table about 500.
      expect(call['Shared Hit Blocks']! + call['Shared Read Blocks']!).toBeLessThanOrEqual(100);
      // The floor stands at the first recent job, and a second call finds nothing more to remove.
      const { rows: floor } = await client.query(`SELECT below_job_id FROM ${t.addedEventsFloor}`);
      expect(Number(floor[0].below_job_id)).toBe(OLD_IN_ROW + 1);
      const { rows: again } = await client.query(cleanupAddedEventsSql(t), [cutoff, 10_000]);
      expect(again[0]).toEqual({ n: 0, more: false });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    // Its walk, planned with the function's settings: the primary key in order, no sort.
    const walk = await explain(
      `SELECT id, created_at FROM ${ctx.table('job_queue')} WHERE id >= $1 ORDER BY id`,
      [0],
      ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'],
    );
    expect(nodes(walk).map((n) => n['Index Name'])).toContain('job_queue_pkey');
    expect(nodes(walk).map((n) => n['Node Type'])).not.toContain('Sort');
  }

  it('reads one job history and cleans up old events without walking the recent ones, before ANALYZE', async () => {
    await expectLinear();
  });

  it('and after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE ${ctx.table('job_events')}, ${ctx.table('job_queue')}`);
    await expectLinear();
  });
});
