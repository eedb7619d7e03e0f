/**
 * The throughput counters on PostgreSQL (migration 012): concurrent completions from several
 * connections write rows of their own slot of the minute and the read sums them, and the
 * supervisor removes the rows older than the hour.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const JOBS = 300;
const T0 = new Date('2030-01-01T10:00:00.000Z');

describe('throughput counters (postgres)', () => {
  const ctx = usePostgres();

  it('counts every completion of processors on several connections at once, in several slots of the minute', async () => {
    const clock = new ManualClock(T0);
    const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: PG_URL, max: 3 }));
    try {
      const queues = pools.map((pool) => ctx.queue({ pool, clock }));
      await queues[0]!.addJobs(Array.from({ length: JOBS }, (_, i) => ({ jobType: 'work', payload: { i } })));
      let done = 0;
      const processors = queues.map((queue) =>
        queue.createProcessor(
          {
            work: async () => {
              done++;
            },
          },
          { concurrency: 5, batchSize: 5, pollInterval: 20 },
        ),
      );
      for (const processor of processors) processor.startInBackground();
      const deadline = Date.now() + 30_000;
      while (done < JOBS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all(processors.map((processor) => processor.stopAndDrain()));

      expect(await queues[0]!.getThroughput({ minutes: 1 })).toEqual([{ minute: T0, completed: JOBS, failed: 0 }]);
      const { rows } = await ctx.sql.query(`SELECT slot, completed FROM ${ctx.table('job_throughput')}`);
      expect(rows.length, 'rows of the minute (one per slot written)').toBeGreaterThan(1);
      expect(rows.reduce((sum: number, r: { completed: string }) => sum + Number(r.completed), 0)).toBe(JOBS);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('keeps the rows of about an hour: the supervisor removes the older ones', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_throughput')} (minute, slot, completed, failed)
       SELECT $1::timestamptz - g * interval '1 minute', 0, 1, 0 FROM generate_series(0, 70) g`,
      [T0],
    );
    await queue.createSupervisor().start();
    const { rows } = await ctx.sql.query(
      `SELECT min(minute) AS oldest, count(*)::int AS n FROM ${ctx.table('job_throughput')}`,
    );
    // The minute of T0 and the 60 before it: getThroughput's hour and one minute more.
    expect(rows[0]).toEqual({ oldest: new Date(T0.getTime() - 60 * 60_000), n: 61 });
    expect((await queue.getThroughput()).every((m) => m.completed === 1)).toBe(true);
  });
});
