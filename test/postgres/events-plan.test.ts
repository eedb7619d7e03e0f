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
/** Jobs keeping their `added` event in their row (migration 013): old ones first, then recent ones. */
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
    // Clears the 500 old `added` events kept in rows, and reads next to none of the 25,000 recent
    // ones: the statement, and the walk of its batch function (its body, with the function's
    // settings; the outer plan shows a function scan only).
    const cutoff = new Date(OLD.getTime() + 1000);
    const inRows = await explain(cleanupAddedEventsSql(t), [cutoff, 10_000]);
    expect(rowWork(inRows)).toBeLessThanOrEqual(10 * OLD_IN_ROW);
    const batch = await explain(
      `SELECT ctid FROM ${ctx.table('job_queue')} WHERE added_event_id IS NOT NULL AND created_at < $1
       ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [cutoff, 10_000],
      ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'],
    );
    expect(rowWork(batch)).toBeLessThanOrEqual(10 * OLD_IN_ROW);
    expect(nodes(batch).map((n) => n['Index Name'])).toContain('job_queue_added_event_idx');
  }

  it('reads one job history and cleans up old events without walking the recent ones, before ANALYZE', async () => {
    await expectLinear();
  });

  it('and after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE ${ctx.table('job_events')}, ${ctx.table('job_queue')}`);
    await expectLinear();
  });
});
