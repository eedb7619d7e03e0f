/**
 * enqueueCronSlots under contention (DETAILS "Cron schedule record"): callers that read the same
 * due slot race for it, and exactly one enqueues. The race is forced: a raw transaction holds the
 * schedule rows while every caller starts, so all of them read the slot as due before any can
 * take it.
 */
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { CronSlot, NewJob } from '../../src/backend.js';
import { DependencyError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { normalizeJob } from '../../src/validation.js';
import { ManualClock, PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';
import { waitFor } from '../helpers/wait.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const MINUTE = 60_000;
const CALLERS = 8;

/** A job with every default (through the same normalization as addJob), then `overrides`. */
function job(jobType: string, overrides: Partial<NewJob> = {}): NewJob {
  return { ...normalizeJob('', { jobType, payload: { from: jobType } }, T0), ...overrides };
}

describe('enqueueCronSlots under contention (postgres)', () => {
  const ctx = usePostgres();
  /** Raw transactions still holding locks; a failed test must not leave them blocking the next. */
  const holding = new Set<pg.PoolClient>();

  afterEach(async () => {
    for (const client of holding) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
    holding.clear();
  });

  /** A backend on a pool of its own, as in another process. */
  const ownBackend = () => backendOf(ctx.queue({ databaseConfig: { connectionString: PG_URL } }));

  /** Active per-minute schedules, due at T0 + 1 minute; their ids. */
  async function schedules(names: string[], allowOverlap = true): Promise<number[]> {
    const queue = ctx.queue({ clock: new ManualClock(T0) });
    const ids: number[] = [];
    for (const name of names) {
      ids.push(
        await queue.addCronJob({
          scheduleName: name,
          cronExpression: '* * * * *',
          jobType: name,
          payload: {},
          allowOverlap,
        }),
      );
    }
    return ids;
  }

  function slot(scheduleId: number, minute: number, jobType: string): CronSlot {
    return {
      scheduleId,
      expectedNextRunAt: new Date(T0.getTime() + minute * MINUTE),
      nextRunAt: new Date(T0.getTime() + (minute + 1) * MINUTE),
      job: job(jobType),
    };
  }

  /** Holds every schedule row until `release` is called; resolves once `waiters` statements wait for them. */
  async function holdSchedules(): Promise<{
    client: pg.PoolClient;
    whenWaiting(waiters: number): Promise<unknown>;
    release(): Promise<void>;
  }> {
    const client = await ctx.sql.connect();
    holding.add(client);
    await client.query('BEGIN');
    await client.query(`SELECT id FROM ${ctx.table('cron_schedules')} FOR UPDATE`);
    return {
      client,
      whenWaiting: (waiters) =>
        waitFor(
          async () => {
            const { rows } = await ctx.sql.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
              [`%${ctx.table('cron_schedules')}%`],
            );
            return rows[0].n >= waiters;
          },
          { what: `${waiters} callers waiting for the schedule rows` },
        ),
      release: async () => {
        holding.delete(client);
        await client.query('COMMIT');
        client.release();
      },
    };
  }

  async function jobsOfType(jobType: string): Promise<number[]> {
    const { rows } = await ctx.sql.query(`SELECT id FROM ${ctx.table('job_queue')} WHERE job_type = $1 ORDER BY id`, [
      jobType,
    ]);
    return rows.map((r) => Number(r.id));
  }

  it(`${CALLERS} concurrent calls for one due slot enqueue exactly one job, with one added event`, async () => {
    const [id] = await schedules(['tick']);
    const now = new Date(T0.getTime() + MINUTE);
    const backends = Array.from({ length: CALLERS }, ownBackend);
    const hold = await holdSchedules();
    const racing = Promise.all(backends.map((b) => b.enqueueCronSlots([slot(id!, 1, 'tick')], now)));
    await hold.whenWaiting(CALLERS);
    await hold.release();
    const results = (await racing).flat();

    const won = results.map((r) => r.jobId).filter((jobId): jobId is number => jobId !== null);
    expect(results.every((r) => r.scheduleId === id)).toBe(true);
    expect(won).toHaveLength(1);
    expect(await jobsOfType('tick')).toEqual(won);
    // A row of job_events, or kept in the job's row (migration 013).
    const { rows: events } = await ctx.sql.query(
      `SELECT event_type FROM ${ctx.table('job_events')} WHERE job_id = $1
       UNION ALL
       SELECT 'added' FROM ${ctx.table('job_queue')} WHERE id = $1 AND added_event_id IS NOT NULL`,
      [won[0]],
    );
    expect(events).toEqual([{ event_type: 'added' }]);
    const schedule = (await backends[0]!.getCronSchedules({ id }))[0];
    expect(schedule).toMatchObject({
      nextRunAt: new Date(T0.getTime() + 2 * MINUTE),
      lastJobId: won[0],
      lastEnqueuedAt: now,
    });
  });

  it('callers holding the same schedules in opposite orders never deadlock, and each slot is enqueued once', async () => {
    const names = ['a', 'b', 'c'];
    const ids = await schedules(names);
    const backends = Array.from({ length: 4 }, ownBackend);
    for (let minute = 1; minute <= 4; minute++) {
      const now = new Date(T0.getTime() + minute * MINUTE);
      const forward = ids.map((id, i) => slot(id, minute, names[i]!));
      const lists = [forward, [...forward].reverse(), [forward[1]!, forward[2]!, forward[0]!], [...forward].reverse()];
      const hold = await holdSchedules();
      const racing = Promise.all(backends.map((b, i) => b.enqueueCronSlots(lists[i]!, now)));
      await hold.whenWaiting(backends.length);
      await hold.release();
      const results = (await racing).flat();
      for (const id of ids) {
        expect(
          results.filter((r) => r.scheduleId === id && r.jobId !== null),
          `minute ${minute}, schedule ${id}`,
        ).toHaveLength(1);
      }
    }
    for (const name of names) expect(await jobsOfType(name)).toHaveLength(4);
  });

  it('is one transaction: when an insert fails, no schedule of the list moves on and nothing is enqueued', async () => {
    const [first, second] = await schedules(['first', 'second']);
    const backend = backendOf(ctx.queue());
    const now = new Date(T0.getTime() + MINUTE);
    const bad = { ...slot(second!, 1, 'second'), job: job('second', { dependsOnJobIds: [987_654] }) };
    await expect(backend.enqueueCronSlots([slot(first!, 1, 'first'), bad], now)).rejects.toBeInstanceOf(
      DependencyError,
    );
    const after = await backend.getCronSchedules({});
    expect(after.map((s) => [s.id, s.nextRunAt.getTime(), s.lastJobId])).toEqual([
      [first, T0.getTime() + MINUTE, null],
      [second, T0.getTime() + MINUTE, null],
    ]);
    const { rows } = await ctx.sql.query(`SELECT count(*)::int AS n FROM ${ctx.table('job_queue')}`);
    expect(rows[0].n).toBe(0);
  });

  it('a slot whose expected time is stale, or whose schedule is paused, enqueues nothing and changes nothing', async () => {
    const [stale, paused] = await schedules(['stale', 'paused']);
    const queue = ctx.queue({ clock: new ManualClock(T0) });
    await queue.pauseCronJob(paused!);
    const before = await backendOf(queue).getCronSchedules({});
    const now = new Date(T0.getTime() + MINUTE);
    const results = await backendOf(queue).enqueueCronSlots(
      [slot(stale!, 0, 'stale'), slot(paused!, 1, 'paused')],
      now,
    );
    expect(results).toEqual([
      { scheduleId: stale, jobId: null },
      { scheduleId: paused, jobId: null },
    ]);
    expect(await backendOf(queue).getCronSchedules({})).toEqual(before);
  });

  it('a next_run_at written with microseconds (by SQL, a restore) fires exactly once per slot', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const id = await queue.addCronJob({
      scheduleName: 'micro',
      cronExpression: '* * * * *',
      jobType: 'micro',
      payload: {},
      allowOverlap: true,
    });
    const enqueued: number[] = [];
    for (const minute of [1, 2]) {
      // 0.7 ms past the slot: PostgreSQL keeps microseconds, a JavaScript Date does not.
      await ctx.sql.query(
        `UPDATE ${ctx.table('cron_schedules')} SET next_run_at = $1::timestamptz + interval '700 microseconds' WHERE id = $2`,
        [new Date(T0.getTime() + minute * MINUTE), id],
      );
      clock.set(T0.getTime() + minute * MINUTE + MINUTE / 2);
      enqueued.push(await queue.enqueueDueCronJobs(), await queue.enqueueDueCronJobs());
    }
    expect(enqueued).toEqual([1, 0, 1, 0]);
    expect(await queue.getJobs({ jobType: 'micro' })).toHaveLength(2);
    expect((await queue.getCronJob(id))?.nextRunAt).toEqual(new Date(T0.getTime() + 3 * MINUTE));
  });
});
