/**
 * Another client's write on a job a bulk action matches waits for one batch at most, never for
 * the whole run (postgres/bulk.ts). Interleaved, not timed: once the bulk action's first batch
 * has changed its jobs (its transaction still open), another queue cancels and edits the oldest
 * matching jobs, which the action reaches last; each write must complete before the action goes
 * on, and none may wait on a lock (pg_stat_activity) meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
/** Pending jobs: several batches. */
const N = 2_000;

type Outcome = 'completed' | 'waited on a lock';

/**
 * A pool whose clients run `hook` once, after the first statement whose text matches `pattern`
 * has returned, before handing its result on: the bulk action's transaction is still open.
 */
function hookedPool(pattern: RegExp, hook: () => Promise<void>): pg.Pool {
  let fired = false;
  class HookedClient extends pg.Client {
    override query = ((...args: unknown[]) => {
      const first = args[0] as { text?: string } | string;
      const text = typeof first === 'string' ? first : first.text;
      const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
      if (fired || typeof text !== 'string' || !pattern.test(text) || !(result instanceof Promise)) return result;
      fired = true;
      return result.then(async (r: unknown) => {
        await hook();
        return r;
      });
    }) as pg.Client['query'];
  }
  return new pg.Pool({ connectionString: PG_URL, Client: HookedClient, max: 2 });
}

describe('writes during a bulk action (postgres)', () => {
  const ctx = usePostgres();

  /** Runs `write` until it completes or a statement on this schema waits on a lock. */
  async function outcomeOf(write: Promise<void>): Promise<Outcome> {
    const done = write.then(() => 'completed' as const);
    for (;;) {
      const outcome = await Promise.race([done, sleep(20).then(() => null)]);
      if (outcome) return outcome;
      const { rows } = await ctx.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [`%"${ctx.schema}"%`],
      );
      if (rows[0]!.n > 0) return 'waited on a lock';
    }
  }

  /**
   * N pending jobs; runs `bulk` on a queue whose first statement matching `pattern` lets another
   * queue cancel the oldest job and edit the next one. Returns the bulk's result, the outcome of
   * each write, and the two jobs.
   */
  async function writeDuring(
    pattern: RegExp,
    bulk: (q: JobQueue) => Promise<number>,
  ): Promise<{ count: number; outcomes: Outcome[]; oldest: [number, number] }> {
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_queue')} (job_type, payload, run_at, created_at, updated_at)
       SELECT 'bulk', '{}', $1::timestamptz, $1::timestamptz, $1::timestamptz FROM generate_series(1, $2::integer)`,
      [NOW, N],
    );
    const { rows } = await ctx.sql.query<{ id: string }>(
      `SELECT id FROM ${ctx.table('job_queue')} ORDER BY id LIMIT 2`,
    );
    const oldest = rows.map((r) => Number(r.id)) as [number, number];
    const other = ctx.queue();
    const outcomes: Outcome[] = [];
    const writes: Promise<void>[] = [];
    const pool = hookedPool(pattern, async () => {
      writes.push(other.cancelJob(oldest[0]));
      outcomes.push(await outcomeOf(writes[0]!));
      writes.push(other.editJob(oldest[1], { priority: 9 }));
      outcomes.push(await outcomeOf(writes[1]!));
    });
    try {
      const count = await bulk(ctx.queue({ pool }));
      await Promise.all(writes);
      return { count, outcomes, oldest };
    } finally {
      await pool.end();
    }
  }

  it('cancelJob and editJob on jobs cancelAllUpcomingJobs matches complete while it runs', async () => {
    const { count, outcomes, oldest } = await writeDuring(/SET status = 'cancelled'/, (q) =>
      q.cancelAllUpcomingJobs({ jobType: 'bulk' }),
    );
    expect(outcomes).toEqual(['completed', 'completed']);
    // The job cancelled meanwhile is the other client's; the edited one is cancelled at its batch.
    expect(count).toBe(N - 1);
    const q = ctx.queue();
    expect(await q.getJob(oldest[1])).toMatchObject({ status: 'cancelled', priority: 9 });
    expect(await q.countJobs({ status: 'cancelled' })).toBe(N);
  });

  it('cancelJob and editJob on jobs editAllPendingJobs matches complete while it runs', async () => {
    const { count, outcomes, oldest } = await writeDuring(/edited AS \(/, (q) =>
      q.editAllPendingJobs({ jobType: 'bulk' }, { priority: 5 }),
    );
    expect(outcomes).toEqual(['completed', 'completed']);
    // The job cancelled meanwhile is no longer pending at its batch; the edited one is edited again.
    expect(count).toBe(N - 1);
    const q = ctx.queue();
    expect(await q.getJob(oldest[0])).toMatchObject({ status: 'cancelled', priority: 0 });
    expect(await q.getJob(oldest[1])).toMatchObject({ status: 'pending', priority: 5 });
  });
});
