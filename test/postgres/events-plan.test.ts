/**
 * Reading and cleaning up the event history costs work linear in the events touched, not in the
 * events stored: a job's history is read through the primary key (job_id, id), and the cleanup
 * by age walks only the old events, with stale statistics (right after a bulk insert) and fresh
 * ones. Measured as the rows every plan node produced or threw away, times its loops, from
 * EXPLAIN (ANALYZE).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupEventsSql, jobEventsSql } from '../../src/backends/postgres/queries/events.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { usePostgres } from './support.js';
import { nodes, rowWork, type PlanNode } from './plans.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const OLD = new Date('2029-01-01T00:00:00.000Z');
/** Recent events: 4 for each of 25,000 jobs. */
const RECENT = 100_000;
/** Old events, the ones a cleanup deletes, stored first (events are written in time order). */
const OLD_EVENTS = 500;

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
  }, 60_000);

  async function explain(text: string, values: unknown[]): Promise<PlanNode> {
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
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
    const history = await explain(jobEventsSql(t), [7]);
    expect(rowWork(history)).toBeLessThanOrEqual(20);
    expect(nodes(history).map((n) => n['Index Name'])).toContain('job_events_pkey');
    // Deletes the 500 old events, and reads next to none of the 100,000 recent ones.
    const cleanup = await explain(cleanupEventsSql(t), [new Date(OLD.getTime() + 1000), 10_000]);
    expect(rowWork(cleanup)).toBeLessThanOrEqual(10 * OLD_EVENTS);
  }

  it('reads one job history and cleans up old events without walking the recent ones, before ANALYZE', async () => {
    await expectLinear();
  });

  it('and after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE ${ctx.table('job_events')}`);
    await expectLinear();
  });
});
